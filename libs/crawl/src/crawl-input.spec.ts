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
    expect(parseCrawlInput(JSON.parse(JSON.stringify(stored)))).toEqual({ ...stored, warnings: [] });
  });

  it("reads a request's warnings, and none from an input without them (older jobs, re-extractions, monitor runs)", () => {
    const warning = { code: 'schema_type_misspelled', message: 'did you mean number?', location: 'body.schema.price' };
    expect(parseCrawlInput({ ...stored, warnings: [warning] }).warnings).toEqual([warning]);
    expect(parseCrawlInput({ ...stored, warnings: undefined }).warnings).toEqual([]);
    expect(parseCrawlInput(stored).warnings).toEqual([]);
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

  it('reads formats with the json format beside its schema and prompt; refuses json without a schema, and a schema beside other formats', () => {
    const formats = { formats: ['markdown', 'json'], only_main_content: true, full_page_screenshot: false };
    expect(parseCrawlInput({ ...stored, page_formats: formats, prompt: 'Titles.' })).toMatchObject({
      schema: stored.schema,
      page_formats: formats,
      prompt: 'Titles.',
    });
    expect(() => parseCrawlInput({ ...stored, schema: null, page_formats: formats })).toThrow(/json and a schema/);
    expect(() => parseCrawlInput({ ...stored, page_formats: { ...formats, formats: ['markdown'] } })).toThrow(/json and a schema/);
    expect(parseCrawlInput({ ...stored, schema: null, page_formats: { ...formats, formats: ['markdown'] } }).schema).toBeNull();
  });
});
