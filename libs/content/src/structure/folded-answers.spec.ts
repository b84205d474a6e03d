import { parseHtml, type Element } from '../dom';
import { isHidden } from '../visibility';
import { foldedAnswers } from './folded-answers';

function shown(html: string): string[] {
  return [...foldedAnswers(parseHtml(`<body>${html}</body>`), (el: Element) => isHidden(el))].map((el) => el.attribs.id).sort();
}

const answer = 'Yes, it is made of tear-resistant fabric with reinforced stitching.';

describe('folded answers: a list of questions whose answers a script folds without ARIA', () => {
  it('shows the hidden answer right after each question, pairs in items of their own or side by side', () => {
    const items =
      `<div class="faq"><div class="item"><div>Is it durable?</div><div id="a1" style="display: none;">${answer}</div></div>` +
      `<div class="item"><div>Is it light?</div><div id="a2" style="display: none;">${answer}</div></div></div>`;
    expect(shown(items)).toEqual(['a1', 'a2']);
    const dl = `<dl><dt>Is it durable?</dt><dd id="b1" hidden>${answer}</dd><dt>Is it light?</dt><dd id="b2" hidden>${answer}</dd></dl>`;
    expect(shown(dl)).toEqual(['b1', 'b2']);
  });

  it('not a lone question, a hidden block after a line that asks nothing, nor an answer of links', () => {
    const links = Array.from({ length: 4 }, (_, i) => `<a href="/c${i}">Category ${i}</a>`).join(' ');
    const html =
      `<div><p>Is it durable?</p><p id="c1" hidden>${answer}</p></div>` +
      `<ul><li><span>Shop</span><div id="d1" hidden>${answer}</div></li><li><span>Help</span><div id="d2" hidden>${answer}</div></li></ul>` +
      `<div><div><p>Any questions?</p><div id="e1" hidden>${links}</div></div><div><p>More?</p><div id="e2" hidden>${links}</div></div></div>`;
    expect(shown(html)).toEqual([]);
  });
});
