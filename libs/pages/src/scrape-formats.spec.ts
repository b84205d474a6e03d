import { loadOptionsFor } from './scrape-formats';

describe('loadOptionsFor (a formats plan as the loader’s conversion options)', () => {
  it('carries the tag filters into the conversion, and nothing when there are none', () => {
    const plain = { formats: ['markdown' as const], only_main_content: true, full_page_screenshot: false };
    expect(loadOptionsFor(plain)).toEqual({ conversion: 'main', also: { text: false, html: false } });
    expect(loadOptionsFor({ ...plain, include_tags: ['article'], exclude_tags: ['.ads'] })).toMatchObject({
      conversion: 'main',
      tags: { include: ['article'], exclude: ['.ads'] },
    });
    expect(loadOptionsFor({ ...plain, include_tags: [], exclude_tags: ['nav'] }).tags).toEqual({ exclude: ['nav'] });
  });
});
