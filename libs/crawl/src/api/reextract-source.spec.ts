import type { PageArchive } from '@app/archive';
import type { JobRecord } from '@app/jobs';
import { crawlSource, extractSource } from './reextract-source';

const schema = { type: 'object', properties: { name: { type: 'string' } } };

function extractJob(over: Partial<JobRecord> = {}): JobRecord {
  return {
    _id: 'j_ext',
    user_id: 'u1',
    type: 'extract',
    status: 'completed',
    input: {
      url: 'https://shop.test/p/1',
      fetch_mode: 'static',
      schema,
      schema_id: 'sch_1',
      site_id: null,
      llm_config: null,
      max_cost_usd: null,
      extraction_mode: 'auto',
      fetch_control: null,
      provenance: 'full',
      grounding: 'fail_page',
      archive: true,
    },
    ...over,
  } as unknown as JobRecord;
}

/** The archive's `record`: the extract's one page, kept or not (or a failure record). */
function archive(kept: 'page' | 'none' | 'failure'): Pick<PageArchive, 'record'> {
  return {
    record: async (userId: string, jobId: string, key: string) => {
      if (kept === 'none' || userId !== 'u1' || jobId !== 'j_ext' || key !== 'single') return null;
      return {
        url: 'https://shop.test/p/1',
        key,
        failure: kept === 'failure' ? { category: 'invalid_request', message: 'x' } : null,
      } as never;
    },
  };
}

describe('extractSource', () => {
  it("an extract that kept its page: one page, offered by its URL and copied from the one-page key; the extract's schema and options", async () => {
    const source = await extractSource(archive('page'), extractJob(), 'all');
    expect(source.pages).toBe(1);
    expect(source.singlePage).toEqual({ url: 'https://shop.test/p/1', key: 'single' });
    expect(source.input).toMatchObject({
      url: 'https://shop.test/p/1',
      schema,
      schema_id: 'sch_1',
      page_formats: null,
      extraction_mode: 'auto',
      options: { fetch_mode: 'static', provenance: 'full', grounding: 'fail_page' },
    });
  });

  it('an extract that kept no page: nothing to re-extract, and the answer says why', async () => {
    for (const kept of ['none', 'failure'] as const) {
      const source = await extractSource(archive(kept), extractJob(), 'all');
      expect(source.pages).toBe(0);
      expect(source.nothing).toMatch(/kept no page in the archive/);
    }
  });

  it('only: failed takes a failed extract, only: ungrounded one with a value not on the page', async () => {
    expect((await extractSource(archive('page'), extractJob(), 'failed')).pages).toBe(0);
    expect((await extractSource(archive('page'), extractJob({ status: 'failed' }), 'failed')).pages).toBe(1);
    expect((await extractSource(archive('page'), extractJob({ ungrounded_fields: 0 }), 'ungrounded')).pages).toBe(0);
    const ungrounded = await extractSource(archive('page'), extractJob({ ungrounded_fields: 2 }), 'ungrounded');
    expect(ungrounded.pages).toBe(1);
    expect((await extractSource(archive('page'), extractJob(), 'ungrounded')).nothing).toMatch(/no pages with a value not found/);
  });
});

describe('crawlSource', () => {
  it('a crawl-engine job: its input as stored and its fetched pages as the crawl map counts them; no single page', async () => {
    const counted: unknown[] = [];
    const repository = { map: { countFetched: async (jobId: string, only: string) => (counted.push([jobId, only]), 7) } };
    const job = {
      _id: 'j_crawl',
      type: 'crawl',
      input: {
        url: 'https://shop.test/',
        schema,
        schema_id: null,
        site_id: null,
        llm_config: null,
        options: { max_pages: 50 },
        extraction_mode: 'model',
      },
    } as unknown as JobRecord;
    const source = await crawlSource(repository, job, 'failed');
    expect(source).toMatchObject({ pages: 7, nothing: 'The job has no failed pages to re-extract.' });
    expect(source.singlePage).toBeUndefined();
    expect(source.input.options.max_pages).toBe(50);
    expect(counted).toEqual([['j_crawl', 'failed']]);
  });
});
