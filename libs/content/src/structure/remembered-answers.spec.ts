import { findFirst, parseHtml, type Element } from '../dom';
import { rememberAnswers } from './remembered-answers';

describe('rememberAnswers: a pure test asked once per element', () => {
  it('gives the answers of the test, asking it once per element', () => {
    const body = findFirst(parseHtml('<body><p id="a">x</p><p id="b">y</p></body>'), 'body')!;
    const [a, b] = body.children as Element[];
    const asked: string[] = [];
    const test = rememberAnswers((el) => {
      asked.push(el.attribs.id);
      return el.attribs.id === 'a';
    });
    expect([test(a), test(b), test(a), test(b), test(a)]).toEqual([true, false, true, false, true]);
    expect(asked).toEqual(['a', 'b']);
  });
});
