import { FirecrawlError } from '../wire/errors';
import { gleanerTarget } from './monitor';

const JSON_FORMAT = { formats: [{ type: 'json' as const, schema: { type: 'object', properties: { title: { type: 'string' } } } }] };

describe("gleanerTarget (a Firecrawl monitor's one target as a Gleaner monitor's)", () => {
  it('a scrape target is a list monitor of its URLs with the json format’s schema', () => {
    const target = gleanerTarget([{ type: 'scrape', urls: ['https://shop.test/a'], scrapeOptions: JSON_FORMAT } as never]);
    expect(target).toEqual({ urls: ['https://shop.test/a'], schema: expect.objectContaining({ type: 'object' }) });
  });

  it('a crawl target keeps the translated crawl options, max_pages only when limit is given', () => {
    const crawl = (crawlOptions: Record<string, unknown>) =>
      gleanerTarget([{ type: 'crawl', url: 'https://shop.test/blog/', crawlOptions, scrapeOptions: JSON_FORMAT } as never]) as {
        url: string;
        options: Record<string, unknown>;
      };
    const plain = crawl({ maxDiscoveryDepth: 2, includePaths: ['^/blog/'], delay: 1 });
    expect(plain.url).toBe('https://shop.test/blog/');
    expect(plain.options).toMatchObject({ max_depth: 2, delay_ms: 1000, include_patterns: [expect.any(String)] });
    expect(plain.options).not.toHaveProperty('max_pages');
    expect(Object.values(plain.options)).not.toContain(undefined);
    expect(crawl({ limit: 25 }).options).toMatchObject({ max_pages: 25 });
  });

  it('more than one target, or a search target, is refused by name', () => {
    const refused = (targets: unknown[]) => {
      try {
        gleanerTarget(targets as never);
      } catch (error) {
        return (error as FirecrawlError).message;
      }
      throw new Error('expected a refusal');
    };
    expect(refused([{ type: 'search' }])).toMatch(/^targets\[0\]: search targets/);
    expect(
      refused([
        { type: 'scrape', urls: [] },
        { type: 'scrape', urls: [] },
      ]),
    ).toMatch(/^targets: more than one target/);
  });
});
