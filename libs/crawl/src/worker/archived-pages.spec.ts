import type { ArchivedPageRecord, PageArchive } from '@app/archive';
import type { JobRecord } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import type { PageLoaderService } from '@app/pages';
import { ArchivedPages } from './archived-pages';

const record = (extra: Partial<ArchivedPageRecord> = {}): ArchivedPageRecord => ({
  _id: 'src:k1',
  job_id: 'src',
  user_id: 'u1',
  key: 'k1',
  url: 'https://shop.test/p/1',
  final_url: 'https://shop.test/p/1',
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  redirects: [],
  fetch_mode: 'static',
  content_type: 'text/html',
  charset: 'utf-8',
  body_sha256: 'x',
  body_bytes: 20,
  rendered_sha256: null,
  rendered_bytes: null,
  fetched_at: '2026-11-30T10:00:00.000Z',
  expires_at: '2026-12-30T10:00:00.000Z',
  origin: 'fetch',
  failure: null,
  ...extra,
});

/** The archive and loader a page worker hands ArchivedPages, recording what is asked of them. */
function parts(stored: ArchivedPageRecord | null) {
  const converted: unknown[][] = [];
  const copies: unknown[][] = [];
  const archive = {
    keep: async () => 'stored' as const,
    load: async () => (stored ? { record: stored, body: Buffer.from('<p>Widget</p>'), rendered: null } : null),
    copy: async (...args: unknown[]) => {
      copies.push(args);
      return stored ? { record: stored, body: Buffer.from('<p>Widget</p>'), rendered: null } : null;
    },
  } as unknown as Pick<PageArchive, 'keep' | 'load' | 'copy'>;
  const loader = {
    convert: async (...args: unknown[]) => {
      converted.push(args);
      return { markdown: 'Widget', links: [], metadata: { openGraph: {}, jsonLd: [] }, stats: { htmlBytes: 1, markdownBytes: 1, ms: 1 } };
    },
  } as unknown as Pick<PageLoaderService, 'convert'>;
  const pages = new ArchivedPages(archive, loader, { warn: () => undefined } as unknown as AppLogger);
  return { pages, converted, copies };
}

const job = { _id: 'J2', user_id: 'u1' } as JobRecord;
const source = {
  kind: 'archive' as const,
  source_job_id: 'src',
  only: 'all' as const,
  pages: 1,
  single_page: { url: 'https://shop.test/p/1', key: 'k1' },
};

describe('ArchivedPages.read (a page of an archive-sourced job)', () => {
  it('converts a page to be extracted as a fetch for extraction would be: the whole page, with attribute values', async () => {
    const s = parts(record());
    const page = await s.pages.read(job, source, 'k9');
    expect(page).toMatchObject({
      fetch: { url: 'https://shop.test/p/1', status: 200, html: '<p>Widget</p>' },
      fetchedAt: '2026-11-30T10:00:00.000Z',
    });
    expect(s.copies).toEqual([['u1', 'src', 'J2', 'k9', 'k1']]);
    expect(s.converted[0].slice(1)).toEqual([{ mode: 'full', also: { attributes: true } }]);
  });

  it('converts a page stored as formats as its formats ask (main content, cleaned HTML, text)', async () => {
    const s = parts(record());
    await s.pages.read(job, source, 'k9', undefined, {
      formats: ['markdown', 'html', 'text'],
      only_main_content: true,
      full_page_screenshot: false,
    });
    expect(s.converted[0].slice(1)).toEqual([{ mode: 'main', also: { text: true, html: true } }]);
    await s.pages.read(job, source, 'k9', undefined, { formats: ['markdown'], only_main_content: false, full_page_screenshot: false });
    expect(s.converted[1].slice(1)).toEqual([{ mode: 'full', also: { text: false, html: false } }]);
  });

  it('a page no longer in the archive is skipped archive_missing; an unreadable WARC record fails with its reason', async () => {
    expect(await parts(null).pages.read(job, source, 'k9')).toMatchObject({ kind: 'skipped', reason: 'archive_missing' });
    const failed = parts(record({ failure: { category: 'http_error', message: 'WARC record 2: status 500' }, status: 500 }));
    expect(await failed.pages.read(job, source, 'k9')).toMatchObject({
      kind: 'failed',
      error_category: 'http_error',
      error_message: 'WARC record 2: status 500',
    });
  });
});
