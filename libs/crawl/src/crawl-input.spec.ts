import { resolveCrawlOptions } from '@app/sites';
import { parseCrawlInput } from './crawl-input';

const stored = {
  url: 'http://shop.test/',
  schema: { type: 'object', properties: {} },
  schema_id: null,
  page_formats: null,
  site_id: null,
  llm_config: null,
  options: resolveCrawlOptions({ max_pages: 3 }),
  extraction_mode: 'model',
};

describe('parseCrawlInput', () => {
  it('reads a stored crawl input, its options by the options DTO', () => {
    expect(parseCrawlInput(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  });

  it('fills options an older record lacks with their defaults', () => {
    const { max_cost_usd: _gone, ...older } = stored.options;
    expect(parseCrawlInput({ ...stored, options: older }).options.max_cost_usd).toBeNull();
  });

  it('refuses options the DTO refuses: the job fails, it never runs half-typed', () => {
    expect(() => parseCrawlInput({ ...stored, options: { ...stored.options, concurrency: 0 } })).toThrow(/crawl options/);
    expect(() => parseCrawlInput({ ...stored, options: { ...stored.options, fetch_mode: 'teleport' } })).toThrow(/crawl options/);
    expect(() => parseCrawlInput({ ...stored, options: 'all of them' })).toThrow();
  });
});
