import type { AppConfig } from '@app/config';
import type { JobLifecycleEvent, JobLifecycleHooks, JobRecord } from '@app/jobs';
import { MemoryQueueAdapter } from '@app/queue';
import { SqliteDocumentStore } from '@app/storage';
import type { WebhooksRepository } from '../webhooks.repository';
import type { JobWebhookTarget } from '@app/jobs';
import { OutboxRepository, type OutboxItem } from './outbox.repository';
import { WebhookDispatcherService } from './webhook-dispatcher.service';

/**
 * The dispatcher on a real (SQLite) outbox: a stream seq that another writer already holds (the
 * counter of a store that is not exact under concurrency can hand one out twice) is never taken for
 * "this page was announced already", while a real repeat (same dedupe key) is stored once.
 */
describe('WebhookDispatcherService.dispatch', () => {
  let store: SqliteDocumentStore;
  let outbox: OutboxRepository;
  let queue: MemoryQueueAdapter;
  let dispatcher: WebhookDispatcherService;
  const target: JobWebhookTarget = {
    key: 'url',
    kind: 'url',
    webhook_id: null,
    url: 'http://127.0.0.1:9/hook',
    secret: null,
    events: ['job.page', 'job.completed'],
    headers: [],
  };
  const job = { _id: 'job-1', user_id: 'user-1', type: 'crawl', webhook_targets: [target] } as unknown as JobRecord;
  const page = (key: string): JobLifecycleEvent => ({
    type: 'job.page',
    job,
    data: { url: key },
    occurred_at: new Date(0).toISOString(),
    dedupeKey: `page:${key}`,
  });
  const items = async () => {
    const col = await store.collection<OutboxItem>({ name: 'webhook_outbox', indexes: [] });
    return (await col.find({ stream: 'job-1:url' }, { sort: { seq: 1 } })).map((i) => [i.seq, i.dedupe_key]);
  };

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    outbox = new OutboxRepository(store);
    await outbox.onModuleInit();
    queue = new MemoryQueueAdapter();
    dispatcher = new WebhookDispatcherService(
      { register: () => undefined } as unknown as JobLifecycleHooks,
      outbox,
      {} as WebhooksRepository,
      queue,
      { webhookMaxAttempts: 3 } as AppConfig,
    );
  });
  afterEach(async () => {
    await queue.close();
    await store.close();
  });

  it('stores a page once per dedupe key', async () => {
    await dispatcher.dispatch(page('a'));
    await dispatcher.dispatch(page('a'));
    expect(await items()).toEqual([[1, 'page:a']]);
  });

  it('draws a new seq when the one it got is already taken, and really stores the page', async () => {
    // Another writer holds seq 1 and 2 while the stream's counter still stands at 0.
    const col = await store.collection<OutboxItem>({ name: 'webhook_outbox', indexes: [] });
    for (const seq of [1, 2]) {
      await col.insertOne({
        _id: `job-1:url:${seq}`,
        stream: 'job-1:url',
        job_id: 'job-1',
        user_id: 'user-1',
        target_key: 'url',
        webhook_id: null,
        seq,
        dedupe_key: `page:other-${seq}`,
        event_type: 'job.page',
        body: '{}',
        status: 'pending',
        attempts: 0,
        next_at: '',
        created_at: '',
      });
    }
    await dispatcher.dispatch(page('b'));
    await dispatcher.dispatch({ ...page('c'), type: 'job.completed', dedupeKey: undefined });
    expect(await items()).toEqual([
      [1, 'page:other-1'],
      [2, 'page:other-2'],
      [3, 'page:b'],
      [4, '#4'],
    ]);
  });
});
