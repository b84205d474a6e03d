import type { LoadedPage } from '@app/pages';
import { resolveCrawlOptions } from '@app/sites';
import { CrawlScope } from '../crawl-scope';
import type { CrawlEntry, PageTaskPayload } from '../crawl.types';
import { canonicalize } from '../url-canon';
import { canonicalOf, duplicateCheck } from './duplicate-check';

const loaded = (headers: Record<string, string>, canonicalUrl?: string, markdown = 'text') =>
  ({
    fetch: { url: 'https://s.example/p?print=1', headers },
    content: { markdown, metadata: canonicalUrl ? { canonicalUrl } : {} },
  }) as unknown as LoadedPage;

describe('canonicalOf', () => {
  it("reads the Link header's rel=canonical first, then the document's", () => {
    expect(
      canonicalOf(loaded({ Link: '<https://s.example/a>; rel="preload", <https://s.example/p>; rel="canonical"' }, 'https://s.example/x')),
    ).toBe('https://s.example/p');
    expect(canonicalOf(loaded({ link: '<https://s.example/p>; rel=canonical' }))).toBe('https://s.example/p');
    expect(canonicalOf(loaded({ link: '<https://s.example/a>; rel="alternate"' }, 'https://s.example/x'))).toBe('https://s.example/x');
    expect(canonicalOf(loaded({}))).toBeNull();
  });
});

describe('duplicateCheck', () => {
  const seed = canonicalize('https://s.example/')!;
  const task = {
    job_id: 'j',
    key: canonicalize('https://s.example/p?print=1')!.key,
    url: 'https://s.example/p?print=1',
  } as PageTaskPayload;
  const target = canonicalize('https://s.example/p')!;
  const entries = (status: CrawlEntry['status']) => ({
    entries: {
      entry: async (id: string) => (id === `j:${target.key}` ? ({ url: target.url, key: target.key, status } as CrawlEntry) : null),
    },
  });
  const noIndex = { check: async () => null };
  const context = (options = {}, monitor?: string) => {
    const resolved = resolveCrawlOptions(options);
    return {
      input: { options: resolved, ...(monitor ? { monitor_id: monitor } : {}) } as never,
      scope: new CrawlScope(seed, resolved),
      job: { _id: 'j', user_id: 'u1' } as never,
    };
  };

  it("honours rel=canonical naming a page the job has (not skipped), in every mode; not one it skipped or doesn't have", async () => {
    const page = loaded({}, 'https://s.example/p');
    expect(await duplicateCheck(task, context(), entries('pending'), noIndex)!.check(page)).toEqual({
      method: 'duplicate',
      duplicate_of: target.url,
      duplicate_key: target.key,
      reason: 'canonical',
      similarity: null,
    });
    expect(await duplicateCheck(task, context(), entries('skipped'), noIndex)!.check(page)).toBeNull();
    expect(await duplicateCheck(task, context(), { entries: { entry: async () => null } }, noIndex)!.check(page)).toBeNull();
    expect(
      await duplicateCheck(task, context(), entries('completed'), noIndex)!.check(loaded({}, 'https://elsewhere.example/p')),
    ).toBeNull();
  });

  it('asks the index with dedupe on, and nothing for a monitor', async () => {
    const asked: string[] = [];
    const index = {
      check: async (job: { id: string; userId: string }, page: { key: string }, mode: string) => {
        asked.push(`${job.id}/${job.userId}/${page.key}:${mode}`);
        return { original: { key: 'k0', url: 'https://s.example/0' }, reason: 'near' as const, similarity: 0.9 };
      },
    };
    expect(await duplicateCheck(task, context({ dedupe: 'near' }), entries('completed'), index)!.check(loaded({}))).toMatchObject({
      reason: 'near',
      duplicate_of: 'https://s.example/0',
      similarity: 0.9,
    });
    // The job and its tenant (a tenant's erasure drops its records).
    expect(asked).toEqual([`j/u1/${task.key}:near`]);
    expect(await duplicateCheck(task, context({ dedupe: 'off' }), entries('completed'), index)!.check(loaded({}))).toBeNull();
    expect(duplicateCheck(task, context({ dedupe: 'near' }, 'm1'), entries('completed'), index)).toBeUndefined();
  });
});
