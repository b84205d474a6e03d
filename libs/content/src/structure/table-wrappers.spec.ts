import { convertHtml } from '../convert-html';
import { wrapsDataTable } from './table-wrappers';

const prose = 'Build up slowly: each week adds a little distance, and every fourth week steps back so the body can recover.';

describe("table wrappers: a data table's wrapper is the table", () => {
  it('a block whose text is (nearly) all in data tables wraps one; a block with more besides does not', () => {
    expect(wrapsDataTable(1000, 1000)).toBe(true);
    expect(wrapsDataTable(1000, 950)).toBe(true);
    expect(wrapsDataTable(1000, 500)).toBe(false);
    expect(wrapsDataTable(0, 0)).toBe(false);
  });

  it("keeps a plan's table inside a scroller readability's names would clean out", () => {
    const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    const head = `<thead><tr>${days.map((d) => `<th>${d}</th>`).join('')}</tr></thead>`;
    const rows = Array.from(
      { length: 6 },
      (_, w) => `<tr>${days.map((d, i) => `<td>Week ${w + 1}: ${i % 3 === 0 ? 'Rest' : `Run ${i + w} miles`}</td>`).join('')}</tr>`,
    ).join('');
    const html =
      `<body><div class="article"><h1>Couch to marathon</h1><p>${prose}</p><p>${prose}</p><p>${prose}</p>` +
      `<div class="table-box"><div class="isolate overflow-x-scroll"><table>${head}<tbody>${rows}</tbody></table></div></div>` +
      `<p>${prose}</p></div></body>`;
    const text = convertHtml({ html, url: 'https://example.com/plan', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('Week 6');
  });
});
