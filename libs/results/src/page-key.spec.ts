import { pageKeyOf, SINGLE_PAGE_KEY } from './page-key';

describe('pageKeyOf', () => {
  it("a crawl page's result: the page key in its id", () => {
    expect(pageKeyOf({ _id: 'j1', type: 'crawl' }, 'j1:p:3f2a9c')).toBe('3f2a9c');
    expect(pageKeyOf({ _id: 'j1', type: 'reextract' }, 'j1:p:3f2a9c')).toBe('3f2a9c');
  });

  it("a one-page job's result, completed or failed: its single page", () => {
    expect(pageKeyOf({ _id: 'j2', type: 'extract' }, `j2:p:${SINGLE_PAGE_KEY}`)).toBe(SINGLE_PAGE_KEY);
    expect(pageKeyOf({ _id: 'j2', type: 'extract' }, 'j2:0000000001')).toBe(SINGLE_PAGE_KEY);
  });

  it("a crawl's result stored under its seq (not a page), or another job's id: none", () => {
    expect(pageKeyOf({ _id: 'j1', type: 'crawl' }, 'j1:0000000004')).toBeNull();
    expect(pageKeyOf({ _id: 'j1', type: 'crawl' }, 'j9:p:3f2a9c')).toBeNull();
  });
});
