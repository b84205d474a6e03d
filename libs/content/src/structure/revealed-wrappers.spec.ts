import { convertHtml } from '../convert-html';
import { parseHtml } from '../dom';
import { renderedLength, revealedWrappers } from './revealed-wrappers';

const article = '<article><h1>Dark roast</h1><p>A bold blend for long days, described at the length a product page gives it.</p></article>';

describe('revealedWrappers: content a page hides until its scripts show it', () => {
  it('returns an inline-hidden wrapper holding more than the page shows, not a hidden menu, dialog or microdata', () => {
    const doc = parseHtml(
      `<body><div id="app" style="visibility:hidden;min-height:100vh">${article}<ul style="display:none"><li>Menu</li></ul></div>` +
        '<div class="modal" style="display: none">Sign up</div><p>Footer</p></body>',
    );
    expect([...revealedWrappers(doc)].map((el) => el.attribs.id)).toEqual(['app']);
    const shown = parseHtml(`<body>${article}<div id="notes" style="display:none">${article}</div></body>`);
    expect(revealedWrappers(shown).size).toBe(0);
    const microdata = parseHtml(`<body><p>Short visible lead.</p><div itemscope style="display:none">${article}</div></body>`);
    expect(revealedWrappers(microdata).size).toBe(0);
  });

  it('returns the page marked aria-hidden behind an open dialog, not an aria-hidden icon or closed menu', () => {
    const doc = parseHtml(
      `<body><div id="page" aria-hidden="true">${article}<span aria-hidden="true">★</span></div><div role="dialog">We use cookies.</div></body>`,
    );
    expect([...revealedWrappers(doc)].map((el) => el.attribs.id)).toEqual(['page']);
    const icon = parseHtml(`<body>${article}<span id="icon" aria-hidden="true">★ ★</span></body>`);
    expect(revealedWrappers(icon).size).toBe(0);
    const menu = parseHtml(
      `<body><p>Short lead.</p><div aria-hidden="true"><ul><li>${'Sofas Chairs Tables Beds '.repeat(20)}</li></ul></div></body>`,
    );
    expect(revealedWrappers(menu).size).toBe(0);
  });

  it('shows the wrapper in the main content while what it hides inside stays hidden', () => {
    const html =
      `<html><head><title>Dark roast</title></head><body><header><a href="/">Shop</a></header><div class="lockdown-content" style="display:none;">${article}` +
      '<div style="display:none">Hidden inside</div></div><div style="display:none">Cart drawer</div></body></html>';
    const text = convertHtml({ html, url: 'https://example.com/p', mode: 'main', format: 'text' }).markdown;
    expect(text).toContain('A bold blend for long days');
    expect(text).not.toContain('Hidden inside');
    expect(text).not.toContain('Cart drawer');
  });

  it('counts the rendered text, collapsed, and stops once it reaches the length asked for', () => {
    const doc = parseHtml('<body><p>one  two</p><script>var x = 1;</script><div>three <b>four</b></div></body>');
    expect(renderedLength(doc)).toBe('one two'.length + 'three four'.length);
    const stopped = renderedLength(doc, 5);
    expect(stopped).toBeGreaterThanOrEqual(5);
    expect(stopped).toBeLessThan(17);
    expect(renderedLength(doc, 100)).toBe(17);
  });

  it('reveals a wrapper whose text is exactly one more than the page shows, not one that only equals it', () => {
    const hidden = (words: string) => `<body><p>abcd</p><div id="w" style="display:none">${words}</div></body>`;
    expect(revealedWrappers(parseHtml(hidden('abcde'))).size).toBe(1);
    expect(revealedWrappers(parseHtml(hidden('abcd'))).size).toBe(0);
  });
});
