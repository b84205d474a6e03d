import { findFirst, parseHtml } from '../dom';
import { isDataTable } from './data-table';

const table = (html: string) => findFirst(parseHtml(html), 'table')!;
const noInfo = () => undefined;
const rows = (n: number, cols: number) => `<table>${`<tr>${'<td>v</td>'.repeat(cols)}</tr>`.repeat(n)}</table>`;

describe('isDataTable: a table that holds data, not layout', () => {
  it('is data when it has markup only data tables use, or a summary', () => {
    expect(isDataTable(table('<table><tr><th>h</th></tr><tr><td>v</td></tr></table>'), noInfo)).toBe(true);
    expect(isDataTable(table('<table summary="prices"><tr><td>v</td></tr></table>'), noInfo)).toBe(true);
  });

  it('is layout when it says so, or nests another table without data markup', () => {
    expect(isDataTable(table('<table role="presentation"><tr><th>h</th></tr></table>'), noInfo)).toBe(false);
    expect(isDataTable(table(`<table><tr><td>${rows(20, 6)}</td></tr></table>`), noInfo)).toBe(false);
  });

  it('is data from its size: ten rows, more than four columns, or more than ten cells', () => {
    expect(isDataTable(table(rows(10, 1)), noInfo)).toBe(true);
    expect(isDataTable(table(rows(1, 5)), noInfo)).toBe(true);
    expect(isDataTable(table(rows(3, 4)), noInfo)).toBe(true);
    expect(isDataTable(table(rows(2, 2)), noInfo)).toBe(false);
  });

  it('counts a caption as data markup only when it has text', () => {
    const html = '<table><caption></caption><tr><td>v</td></tr></table>';
    expect(isDataTable(table(html), () => ({ text: 0, link: 0, commas: 0, blockDesc: false }))).toBe(false);
    expect(isDataTable(table(html), () => ({ text: 7, link: 0, commas: 0, blockDesc: false }))).toBe(true);
  });
});
