import type { PageCapture } from '@app/archive';
import type { AppLogger } from '@app/observability';
import type { LoadedPage } from '@app/pages';
import { SINGLE_PAGE_KEY } from '@app/results';
import { EXTRACT_ARCHIVE_DEFAULT, extractArchives } from './extract-archive';
import { keepPage } from './page/keep-page';

const page = {
  fetch: {
    url: 'https://shop.test/p/1/',
    status: 200,
    headers: { 'content-type': 'text/html' },
    contentType: 'text/html',
    charset: 'utf-8',
    html: '<h1>Lamp</h1>',
    raw: Buffer.from('<h1>Lamp</h1>'),
    bytes: 13,
    redirects: ['https://shop.test/p/1'],
    durationMs: 3,
    mode: 'static',
  },
  content: {},
  fetchedAt: '2026-10-01T10:00:00.000Z',
  fetchDurationMs: 3,
} as unknown as LoadedPage;

function logger(): AppLogger & { warnings: unknown[] } {
  const warnings: unknown[] = [];
  return { warn: (...args: unknown[]) => warnings.push(args), warnings } as unknown as AppLogger & { warnings: unknown[] };
}

describe('extractArchives', () => {
  it("the request's value, else the saved site's, else the extract default (false)", () => {
    expect(EXTRACT_ARCHIVE_DEFAULT).toBe(false);
    expect(extractArchives(undefined, {})).toBe(false);
    expect(extractArchives(undefined, { archive: true })).toBe(true);
    expect(extractArchives(false, { archive: true })).toBe(false);
    expect(extractArchives(true, { archive: false })).toBe(true);
  });
});

describe('keepPage (an extract keeps its page)', () => {
  it("keeps the page as a crawl's page worker does, under the one-page job's key", async () => {
    const kept: Array<[string, string, string, PageCapture]> = [];
    const archive = { keep: async (...args: [string, string, string, PageCapture]) => (kept.push(args), 'stored' as const) };
    await keepPage(archive, { _id: 'j1', user_id: 'u1' }, SINGLE_PAGE_KEY, 'https://shop.test/p/1', page, logger());
    expect(kept).toHaveLength(1);
    const [userId, jobId, key, capture] = kept[0];
    expect([userId, jobId, key]).toEqual(['u1', 'j1', 'single']);
    expect(capture).toMatchObject({
      url: 'https://shop.test/p/1',
      finalUrl: 'https://shop.test/p/1/',
      redirects: ['https://shop.test/p/1'],
      body: page.fetch.raw,
      fetchedAt: page.fetchedAt,
    });
  });

  it('never fails the extract: an archive that cannot keep the page is logged', async () => {
    const log = logger();
    const archive = {
      keep: async () => {
        throw new Error('disk full');
      },
    };
    await expect(
      keepPage(archive, { _id: 'j1', user_id: 'u1' }, SINGLE_PAGE_KEY, 'https://shop.test/p/1', page, log),
    ).resolves.toBeUndefined();
    expect(log.warnings).toHaveLength(1);
  });
});
