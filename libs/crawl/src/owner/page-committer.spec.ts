import { Usage } from '@app/core';
import type { CrawlOptions } from '@app/sites';
import type { ResultRecord } from '@app/results';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import type { CrawlEntry, PageOutcome } from '../crawl.types';
import { routeOutcome } from '../page-retry-policy';
import { canonicalize } from '../url-canon';
import { entryId } from './crawl-entry';
import { StopCrawl } from './crawl-run';
import { Frontier } from './frontier';
import type { WindowEntry } from './frontier-window';
import { HostSchedule } from './host-schedule';
import { InFlightPages } from './in-flight';
import { CommitBatch } from './commit-batch';
import { PageAnnouncer } from './page-announcer';
import { PageCommitter, RetryPage } from './page-committer';
import { TicketBook } from './ticket-book';

type Completed = Extract<PageOutcome, { kind: 'completed' }>;

describe('PageCommitter', () => {
  let f: OwnerFixture;
  let steps: string[];
  let announcements: Array<{ kind: string; firstTime?: boolean }>;
  let added: Array<Record<string, number>>;
  let metadata: Array<Record<string, unknown> | undefined>;
  let leaseHeld: boolean;
  let settleFails: number;
  let hosts: HostSchedule;
  let inFlight: InFlightPages;
  let tickets: TicketBook;
  let frontier: Frontier;
  let committer: PageCommitter;

  beforeEach(() => setUp({ max_pages: 2 }));

  /** The committer over a fresh owner fixture with these options. */
  async function setUp(options: Partial<CrawlOptions>, seedUrl?: string): Promise<void> {
    f = await ownerFixture(options, seedUrl);
    steps = [];
    announcements = [];
    added = [];
    metadata = [];
    leaseHeld = true;
    settleFails = 0;
    hosts = new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 4 });
    inFlight = new InFlightPages(hosts);
    tickets = new TicketBook(2, (count, max) => f.repository.states.reserveTickets(f.run.jobId, f.run.epoch, count, max));
    frontier = new Frontier(f.run, f.repository, inFlight, {
      admissionClosed: () => tickets.full,
      onWindowEntry: () => undefined,
      onQueued: () => undefined,
    });
    await frontier.restore(0);
    const repository = f.repository;
    const store = {
      entries: {
        settle: (...args: Parameters<typeof repository.entries.settle>) => {
          if (settleFails-- > 0) return Promise.reject(new Error('store down'));
          steps.push('settle');
          return repository.entries.settle(...args);
        },
        entry: repository.entries.entry.bind(repository.entries),
        relabelSkipped: repository.entries.relabelSkipped.bind(repository.entries),
        skipPending: repository.entries.skipPending.bind(repository.entries),
      },
      states: repository.states,
    };
    const events = {
      publishResult: async () => true,
      emit: async () => true,
      publishPages: async (_job: unknown, pages: ReadonlyArray<{ result?: unknown; error?: unknown; firstTime: boolean }>) => {
        steps.push('announce');
        for (const page of pages) {
          if (page.result) announcements.push({ kind: 'result', firstTime: page.firstTime });
          if (page.error) announcements.push({ kind: 'error', firstTime: page.firstTime });
        }
      },
    };
    let n = 0;
    const results = {
      storePages: async (
        _job: unknown,
        pages: ReadonlyArray<{ pageKey: string; input: { status: string; url: string; metadata?: Record<string, unknown> } }>,
      ) => {
        const children = (await f.repository.map.countEntries(f.run.jobId)) - pages.length;
        steps.push(`result(children stored: ${children})`);
        return pages.map(({ pageKey: key, input }) => {
          metadata.push(input.metadata);
          return { _id: key, id: `res_${++n}`, status: input.status, url: input.url } as unknown as ResultRecord;
        });
      },
    };
    const announcer = new PageAnnouncer(f.run, events, { pageRecord: async () => null }, f.repository.entries);
    const lease = { holds: async () => leaseHeld };
    const batch = new CommitBatch(f.run, {
      store: {
        settleMany: (...args: Parameters<typeof repository.entries.settleMany>) => {
          if (settleFails-- > 0) return Promise.reject(new Error('store down'));
          steps.push('settle');
          return repository.entries.settleMany(...args);
        },
      },
      outcomes: repository.outcomes,
      results,
      announcer,
      lease,
      inFlight,
      metrics: { commits: { inc: () => undefined } },
    });
    committer = new PageCommitter(f.run, {
      store,
      batch,
      announcer,
      lease,
      frontier,
      tickets,
      inFlight,
      hosts,
      counters: { add: (inc) => void added.push(inc), checkBudget: async () => undefined },
      metrics: { commits: { inc: () => undefined } },
    });
  }
  afterEach(() => f.close());

  /** A page admitted with the next ticket and claimed by this owner. */
  async function running(path: string): Promise<WindowEntry> {
    const entry = await f.pending(path);
    entry.ticket = await tickets.take();
    await f.repository.entries.claim(entry.id, f.run.epoch, { ticket: entry.ticket ?? `~${entry.key}`, admitted: entry.ticket !== null });
    inFlight.add(entry);
    return entry;
  }
  const completed = (url: string, links: string[] = []): Completed => ({
    kind: 'completed',
    final_url: url,
    http_status: 200,
    fetch_mode: 'static',
    links,
    fetch_duration_ms: 5,
    extract_duration_ms: 7,
    result: {
      data: { title: 'x' },
      made: { method: 'model' },
      model: { provider: 'openai', model: 'm' },
      usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.001, llmCostUsd: 0.001 },
    },
  });
  const apply = (entry: WindowEntry, outcome: PageOutcome, retryCount = 0) =>
    committer.apply(entry, routeOutcome(outcome, { retryCount, rateLimitRetries: entry.rateLimitRetries }, Date.now(), 60_000), outcome);
  const stored = (id: string) => f.repository.entries.entry(id) as Promise<CrawlEntry>;

  it('commits in order: children, result, announcement, then the fenced entry write and the counters', async () => {
    const page = await running('/a');
    await apply(page, completed(page.url, ['/a/1', '/a/2']));
    expect(steps).toEqual(['result(children stored: 2)', 'announce', 'settle']);
    expect(announcements).toEqual([{ kind: 'result', firstTime: true }]);
    expect(await stored(page.id)).toMatchObject({
      status: 'completed',
      event_done: true,
      result_id: 'res_1',
      method: 'model',
      cost_usd: 0.001,
    });
    expect(added).toEqual([
      expect.objectContaining({
        page_count: 1,
        'pages_by_method.model': 1,
        model_calls: 1,
        'model_calls_by_kind.full': 1,
        cost_usd: 0.001,
      }),
    ]);
    expect(inFlight.size).toBe(0);
  });

  it("a monitor's unchanged page stores no result and announces nothing, and is counted as a completed page", async () => {
    const page = await running('/u');
    const base = completed(page.url, ['/u/1']);
    await apply(page, {
      ...base,
      result: { ...base.result!, made: { method: 'unchanged' }, model: null, usage: Usage.NONE },
    });
    expect(steps).toEqual(['settle']);
    expect(announcements).toEqual([]);
    expect(await stored(page.id)).toMatchObject({ status: 'completed', result_id: null, method: 'unchanged', model_call: null });
    expect(await f.repository.map.countEntries(f.run.jobId)).toBe(2); // its links still lead on
    expect(added).toEqual([expect.objectContaining({ page_count: 1, 'pages_by_method.unchanged': 1, model_calls: 0 })]);
  });

  it('counts a mixed page (program and a partial model call) and a selectors page by method, call kind and tokens', async () => {
    const mixed = await running('/m');
    const base = completed(mixed.url);
    await apply(mixed, {
      ...base,
      result: {
        ...base.result!,
        made: { method: 'mixed', program_id: 'prg_1', template_id: 'tpl_1', model_fields: ['author'], model_call: 'partial' },
      },
    });
    expect(metadata.at(-1)).toEqual({
      method: 'mixed',
      program_id: 'prg_1',
      template_id: 'tpl_1',
      model_fields: ['author'],
      model_call: 'partial',
    });
    expect(await stored(mixed.id)).toMatchObject({ method: 'mixed', model_call: 'partial' });
    expect(added.at(-1)).toEqual(
      expect.objectContaining({
        'pages_by_method.mixed': 1,
        model_calls: 1,
        'model_calls_by_kind.partial': 1,
        'tokens_by_call_kind.partial.input': 10,
        'tokens_by_call_kind.partial.output': 2,
      }),
    );
    const program = await running('/s');
    await apply(program, {
      ...completed(program.url),
      result: {
        ...base.result!,
        made: { method: 'selectors', program_id: 'prg_1', template_id: 'tpl_1' },
        model: null,
        usage: Usage.NONE,
      },
    });
    expect(await stored(program.id)).toMatchObject({ method: 'selectors', model_call: null });
    const counted = added.at(-1)!;
    expect(counted).toMatchObject({ 'pages_by_method.selectors': 1, model_calls: 0 });
    expect(Object.keys(counted).filter((k) => k.includes('by_kind') || k.includes('by_call_kind'))).toEqual([]);
  });

  it("keeps a page's provenance in its result metadata and its ungrounded count on its entry and the job's counters", async () => {
    const page = await running('/p');
    const base = completed(page.url);
    const provenance = { fields: { title: { source: 'model' as const, grounded: false } }, ungrounded_fields: 1 };
    await apply(page, { ...base, result: { ...base.result!, provenance } });
    expect(metadata.at(-1)).toEqual({ method: 'model', ...provenance });
    expect(await stored(page.id)).toMatchObject({ ungrounded_fields: 1 });
    expect(added.at(-1)).toMatchObject({ page_count: 1, ungrounded_fields: 1 });
  });

  it('counts a page the grounding policy failed (ungrounded_output) as a model call with its ungrounded values', async () => {
    const page = await running('/u');
    await apply(page, {
      kind: 'failed',
      error_category: 'ungrounded_output',
      error_message: 'A value is not on the page (grounding: fail_page): price.',
      error_details: null,
      http_status: 200,
      final_url: page.url,
      retryable: false,
      usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.001, llmCostUsd: 0 },
      ungrounded_fields: 1,
    });
    expect(await stored(page.id)).toMatchObject({ status: 'failed', error_category: 'ungrounded_output', ungrounded_fields: 1 });
    expect(added).toEqual([expect.objectContaining({ failed_count: 1, model_calls: 1, ungrounded_fields: 1, cost_usd: 0.001 })]);
  });

  it('a stale owner (lease not held) writes nothing: no children, no result, no announcement', async () => {
    const page = await running('/a');
    leaseHeld = false;
    await apply(page, completed(page.url, ['/a/1']));
    expect(steps).toEqual([]);
    expect(await f.repository.map.countEntries(f.run.jobId)).toBe(1);
    expect((await stored(page.id)).status).toBe('running');
  });

  it('an entry write refused by the store (another epoch took it over) halts the owner and counts nothing', async () => {
    const page = await running('/a');
    await f.takeOver();
    await f.repository.entries.adoptRunning(f.run.jobId, f.run.epoch + 1);
    await apply(page, completed(page.url));
    expect(f.halts).toEqual(['lease-lost']);
    expect(added).toEqual([]);
    expect((await stored(page.id)).status).toBe('running');
  });

  it('a store error at the entry write leaves the page in flight for Crawlee to retry', async () => {
    const page = await running('/a');
    settleFails = 1;
    await expect(apply(page, completed(page.url))).rejects.toThrow('store down');
    expect(inFlight.has(page.id)).toBe(true);
    // The retry announces again, looking the dedupe key up this time.
    await apply(page, completed(page.url));
    expect(announcements.map((a) => a.firstTime)).toEqual([true, false]);
  });

  it('a failed page keeps a failed result, its error event and the error summary', async () => {
    const page = await running('/a');
    await apply(page, {
      kind: 'failed',
      error_category: 'http_error',
      error_message: 'HTTP 404',
      error_details: 'HTTP 404',
      http_status: 404,
      final_url: page.url,
      retryable: false,
      usage: null,
    });
    expect(announcements.map((a) => a.kind)).toEqual(['result', 'error']);
    expect(await stored(page.id)).toMatchObject({ status: 'failed', error_category: 'http_error', http_status: 404 });
    expect((await f.repository.states.state(f.run.jobId))?.errors_by_category).toEqual({ http_error: 1 });
    expect(added).toEqual([expect.objectContaining({ failed_count: 1, model_calls: 0 })]);
  });

  it('a redirect onto a page the crawl fetches itself is skipped (duplicate) and gives its ticket back', async () => {
    const other = await running('/b');
    const page = await running('/a');
    await frontier.restore(0); // the frontier knows every stored entry
    expect(tickets.freeCount).toBe(0);
    tickets.close(); // every ticket out: the skip reopens admission
    await apply(page, completed(other.url));
    expect(await stored(page.id)).toMatchObject({ status: 'skipped', error_category: 'duplicate', admitted: false });
    expect(tickets.full).toBe(false);
    expect(tickets.freeCount).toBe(1);
    expect((await f.repository.states.state(f.run.jobId))?.skipped_by_reason).toEqual({ duplicate: 1 });
    expect(announcements).toEqual([]);
  });

  it('a redirect onto a known pending page closes that page as fetched here, and keeps this one', async () => {
    const target = await f.pending('/target');
    await frontier.restore(0); // the frontier knows the target
    const page = await running('/a');
    await apply(page, completed(target.url));
    expect(await stored(target.id)).toMatchObject({ status: 'skipped', error_category: 'duplicate' });
    expect((await stored(page.id)).status).toBe('completed');
  });

  it('a redirect onto a URL the crawl never saw records it as fetched here', async () => {
    const page = await running('/a');
    await apply(page, completed('http://shop.test/elsewhere'));
    const id = entryId(f.run.jobId, canonicalize('http://shop.test/elsewhere')!.key);
    expect(await stored(id)).toMatchObject({ status: 'skipped', error_category: 'duplicate', via: 'redirect' });
    expect((await stored(page.id)).status).toBe('completed');
  });

  it("canonicalize strict: a page's rel=canonical on the www twin teaches the alias, kept in the crawl state", async () => {
    await f.close();
    await setUp({ max_pages: 4, canonicalize: 'strict' }, 'http://www.shop.test/');
    const page = await running('/a');
    await apply(page, { ...completed(page.url, ['http://www.shop.test/c']), canonical_url: 'http://shop.test/a' });
    expect(frontier.scope.knownAliases()).toEqual({ 'www.shop.test': 'shop.test' });
    expect(await f.repository.entries.entry(entryId(f.run.jobId, canonicalize('http://shop.test/c')!.key))).toMatchObject({
      url: 'http://shop.test/c',
    });
    expect((await f.repository.states.state(f.run.jobId))?.host_aliases).toEqual({ 'www.shop.test': 'shop.test' });
    // Links to the www host are read as the bare host's from now on.
    expect(frontier.scope.canonical('http://www.shop.test/b')?.url).toBe('http://shop.test/b');
    // The page itself is kept as it came (not taken for a redirect onto its twin), and its links are read by the new rule.
    expect(await stored(page.id)).toMatchObject({ status: 'completed' });
    expect(await f.repository.entries.entry(entryId(f.run.jobId, canonicalize('http://shop.test/a')!.key))).toBeNull();
  });

  it('canonicalize strict: a page skipped for its rel=canonical on the twin teaches the alias too; default mode never', async () => {
    await f.close();
    await setUp({ max_pages: 4, canonicalize: 'strict' }, 'http://shop.test/');
    const original = await running('/a');
    const copy = await running('http://www.shop.test/a');
    const duplicate = { duplicate_of: original.url, duplicate_key: original.key, duplicate_reason: 'canonical' as const, similarity: null };
    await apply(copy, { kind: 'skipped', reason: 'duplicate', why: 'canonical', final_url: copy.url, duplicate });
    expect(await stored(copy.id)).toMatchObject({ status: 'skipped', duplicate_of: original.url, duplicate_reason: 'canonical' });
    expect(frontier.scope.knownAliases()).toEqual({ 'www.shop.test': 'shop.test' });

    await f.close();
    await setUp({ max_pages: 4 }, 'http://www.shop.test/');
    const plain = await running('/a');
    await apply(plain, { ...completed(plain.url), canonical_url: 'http://shop.test/a' });
    expect(frontier.scope.knownAliases()).toEqual({});
    expect((await f.repository.states.state(f.run.jobId))?.host_aliases).toBeUndefined();
  });

  it('a rate-limited page pauses its host and goes back pending under a new dispatch number', async () => {
    const page = await running('/a');
    const until = Date.now() + 60_000;
    await apply(page, { kind: 'rate_limited', paused_until: until, limited_since: Date.now(), http_status: 429, retry_after_ms: null });
    expect(hosts.canStart(page.host, Date.now())).toBe(false);
    expect(await stored(page.id)).toMatchObject({ status: 'pending', dispatch: 1, rate_limit_retries: 1, rate_limited: true });
    expect((await f.repository.states.state(f.run.jobId))?.met_rate_limit).toBe(true);
    expect(frontier.nextDueAt()).toBe(until);
  });

  it('a retryable failure is thrown for Crawlee, then requeued with a backoff; attempts run out into a failure', async () => {
    const page = await running('/a');
    const failure: PageOutcome = {
      kind: 'failed',
      error_category: 'timeout',
      error_message: 'timed out',
      error_details: null,
      http_status: null,
      final_url: null,
      retryable: true,
      usage: null,
    };
    await expect(apply(page, failure)).rejects.toBeInstanceOf(RetryPage);
    await committer.retryLater(page, 1);
    expect(await stored(page.id)).toMatchObject({ status: 'pending', dispatch: 1, retry_count: 1 });
    await f.repository.entries.claim(page.id, f.run.epoch, {});
    inFlight.add(page);
    await committer.giveUp(page, new RetryPage(failure), 3);
    expect(await stored(page.id)).toMatchObject({ status: 'failed', error_category: 'timeout', error_details: 'gave up after 3 attempts' });
  });

  it('a cancelled outcome halts the owner', async () => {
    const page = await running('/a');
    await expect(apply(page, { kind: 'cancelled' })).rejects.toBeInstanceOf(StopCrawl);
    expect(f.halts).toEqual(['cancelled']);
  });

  it('an adopted page, which an earlier owner may have announced, looks the dedupe key up', async () => {
    const page = await running('/a');
    page.mayBeAnnounced = true;
    await apply(page, completed(page.url));
    expect(announcements).toEqual([{ kind: 'result', firstTime: false }]);
  });
});
