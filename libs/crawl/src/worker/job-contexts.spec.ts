import type { JobRecord } from '@app/jobs';
import { resolveCrawlOptions } from '@app/sites';
import { JOB_CACHE_MS, JobContexts } from './job-contexts';

const INPUT = {
  url: 'https://shop.test/',
  schema: { type: 'object', properties: { name: { type: 'string' } } },
  page_formats: null,
  schema_id: null,
  site_id: null,
  llm_config: null,
  options: { max_pages: 10 },
  extraction_mode: 'model',
};

function jobOf(status: string, extra: Partial<JobRecord> = {}): JobRecord {
  return { _id: 'J1', user_id: 'u1', type: 'crawl', status, input: structuredClone(INPUT), ...extra } as unknown as JobRecord;
}

function contexts(records: Array<JobRecord | null>) {
  const reads: string[] = [];
  let next = 0;
  const store = new JobContexts(async (jobId) => {
    reads.push(jobId);
    return records[Math.min(next++, records.length - 1)];
  });
  return { store, reads };
}

describe('JobContexts (what page workers know of their jobs)', () => {
  afterEach(() => jest.useRealTimers());

  it('reads the job once, parses its input with every default applied, and answers from memory until JOB_CACHE_MS', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { store, reads } = contexts([jobOf('running')]);
    const first = await store.get('J1');
    expect(first?.input.options).toEqual(resolveCrawlOptions({ max_pages: 10 }));
    expect(first?.scope).toBeDefined();
    jest.setSystemTime(1_000_000 + JOB_CACHE_MS - 1);
    expect(await store.get('J1')).toBe(first);
    expect(reads).toEqual(['J1']);
  });

  it('re-reads the record after JOB_CACHE_MS (a status change shows) and keeps the input parsed once, its plan and its opened secrets', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { store, reads } = contexts([jobOf('running'), jobOf('cancelled', { input: { url: 'not even parsed' } })]);
    const first = (await store.get('J1'))!;
    first.secrets = { sealed: 's', opened: { a: 'b' } };
    jest.setSystemTime(1_000_000 + JOB_CACHE_MS);
    const again = (await store.get('J1'))!;
    expect(reads).toEqual(['J1', 'J1']);
    expect(again.job.status).toBe('cancelled');
    expect(again.input).toBe(first.input);
    expect(again.scope).toBe(first.scope);
    expect(again.plan).toBe(first.plan);
    expect(again.plans).toBe(first.plans);
    expect(again.secrets).toBe(first.secrets);
  });

  it('pages asking at once share one read', async () => {
    const { store, reads } = contexts([jobOf('running')]);
    const got = await Promise.all(Array.from({ length: 16 }, () => store.get('J1')));
    expect(reads).toEqual(['J1']);
    expect(new Set(got).size).toBe(1);
  });

  it('is null for a job that is gone, deleted (its input cleared), or whose input is malformed', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    expect(await contexts([null]).store.get('J1')).toBeNull();
    expect(await contexts([jobOf('running', { input: { url: 'https://shop.test/' } })]).store.get('J1')).toBeNull();
    const { store } = contexts([jobOf('running'), jobOf('completed', { deleted_at: '2026-01-01T00:00:00.000Z', input: {} })]);
    expect(await store.get('J1')).not.toBeNull();
    jest.setSystemTime(1_000_000 + JOB_CACHE_MS);
    expect(await store.get('J1')).toBeNull();
  });
});
