import type { CrawlJobInput } from '../crawl-input';
import type { PageOutcome, PageTaskPayload } from '../crawl.types';
import { monitorObservation, unchangedOutcome, type MonitorNote } from './monitor-note';

const task: PageTaskPayload = { job_id: 'j', key: 'k', url: 'http://s/p/1', depth: 1, dispatch: 0, extract: true, request_id: null };
const input = { monitor_id: 'm' } as CrawlJobInput;
const note = (over: Partial<MonitorNote> = {}): MonitorNote => ({
  memory: null,
  via: null,
  etag: '"e"',
  lastModified: null,
  textHash: 'h',
  ...over,
});
const fetched = { url: 'http://s/p/1', status: 304, mode: 'static', durationMs: 3 } as Parameters<typeof unchangedOutcome>[0];

describe('monitor page notes', () => {
  it('an unchanged page keeps last run’s record and links, with no model call', () => {
    const outcome = unchangedOutcome(fetched, ['http://s/'], { price: 1 }, true);
    expect(outcome).toMatchObject({
      kind: 'completed',
      http_status: 304,
      links: ['http://s/'],
      result: { data: { price: 1 }, made: { method: 'unchanged' }, model: null, usage: { inputTokens: 0, costUsd: 0 } },
    });
    expect(unchangedOutcome(fetched, [], null, false)).toMatchObject({ result: null });
    expect(monitorObservation(task, input, outcome, note({ via: 'not_modified' }))).toMatchObject({
      kind: 'unchanged',
      via: 'not_modified',
      model_call: false,
      data: { price: 1 },
      etag: '"e"',
    });
  });

  it('an extracted page is a model call; a page only crawled for links is navigation', () => {
    const extracted: PageOutcome = {
      kind: 'completed',
      final_url: task.url,
      http_status: 200,
      fetch_mode: 'static',
      links: [],
      fetch_duration_ms: 1,
      extract_duration_ms: 1,
      result: {
        data: { price: 2 },
        made: { method: 'model' },
        model: { provider: 'openai', model: 'm' },
        usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.01, llmCostUsd: 0.01 },
      },
    };
    const extractedResult = extracted.kind === 'completed' ? extracted.result! : null;
    expect(monitorObservation(task, input, extracted, note())).toMatchObject({ kind: 'extracted', model_call: true, tokens_input: 10 });
    expect(
      monitorObservation(task, input, { ...extracted, result: { ...extractedResult!, made: { method: 'selectors' } } }, note()),
    ).toMatchObject({
      model_call: false,
    });
    expect(monitorObservation(task, input, { ...extracted, result: null }, note())).toMatchObject({ kind: 'navigation', data: null });
  });

  it('a 404 or 410 is gone (a miss), any other failure is failed (never a removal), a retry or skip is nothing yet', () => {
    const failed = (status: number | null): PageOutcome => ({
      kind: 'failed',
      error_category: 'http_error',
      error_message: 'x',
      error_details: null,
      http_status: status,
      final_url: null,
      retryable: false,
      usage: null,
    });
    expect(monitorObservation(task, input, failed(404), note())).toMatchObject({ kind: 'gone' });
    expect(monitorObservation(task, input, failed(410), note())).toMatchObject({ kind: 'gone' });
    expect(monitorObservation(task, input, failed(500), note())).toMatchObject({ kind: 'failed', model_call: false });
    expect(monitorObservation(task, input, failed(null), note())).toMatchObject({ kind: 'failed' });
    expect(monitorObservation(task, input, { kind: 'deferred', retry_in_ms: 5, reason: 'x' }, note())).toBeNull();
    expect(monitorObservation(task, input, { kind: 'cancelled' }, note())).toBeNull();
  });

  it('says when a page was seen exactly as remembered (its memory then needs only the visit time)', () => {
    const memory = { etag: '"e"', lastModified: null, textHash: 'h', links: ['http://s/'], data: { price: 1 }, fetchedAt: 'x' };
    const outcome = unchangedOutcome(fetched, memory.links, memory.data, true);
    const seen = (over: Partial<MonitorNote>, links = memory.links) =>
      monitorObservation(task, input, { ...outcome, links } as PageOutcome, note({ memory, via: 'not_modified', ...over }))!.memory_same;
    expect(seen({})).toBe(true);
    expect(seen({ via: 'hash' }, ['http://s/'])).toBe(true);
    expect(seen({ etag: '"f"' })).toBe(false); // a 304 with a new ETag
    expect(seen({ via: 'hash', textHash: 'h' }, ['http://s/', 'http://s/new'])).toBe(false);
    expect(seen({ via: null })).toBe(false); // extracted: not known unchanged
    expect(seen({ memory: null })).toBe(false);
  });
});
