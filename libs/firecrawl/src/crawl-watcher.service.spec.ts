import type { AuthService, Caller, KeyRateLimit } from '@app/auth';
import { AppError } from '@app/core';
import type { JobEventRecord, JobRecord, JobStreamService, JobsService } from '@app/jobs';
import type { ResultsService } from '@app/results';
import { FirecrawlWatcherService, keyOfUpgrade, type WatcherSocket } from './crawl-watcher.service';
import type { FirecrawlJobStatusService } from './job-status.service';

const KEY = 'glk_' + 'W'.repeat(40);
const caller = { userId: 'u1', scopes: ['crawl'] } as unknown as Caller;
const job = { _id: 'J1', type: 'crawl', status: 'running', event_seq: 4 } as JobRecord;

/** A socket that records what it was sent and can close. */
function socket(): WatcherSocket & { sent: Array<Record<string, unknown>>; closes: Array<[number?, string?]>; hangUp(): void } {
  const listeners: Array<() => void> = [];
  const s = {
    readyState: 1,
    sent: [] as Array<Record<string, unknown>>,
    closes: [] as Array<[number?, string?]>,
    send: (data: string) => s.sent.push(JSON.parse(data) as Record<string, unknown>),
    close: (code?: number, reason?: string) => {
      s.closes.push([code, reason]);
      s.hangUp();
    },
    on: (_event: 'close', listener: () => void) => listeners.push(listener),
    hangUp: () => {
      s.readyState = 3;
      for (const listener of listeners.splice(0)) listener();
    },
  };
  return s;
}

/** The watcher over stubs; `follow` hands back the sink and counts closes; `duringFollow` runs while it is being set up. */
function watcher(options: { authenticate?: () => Promise<Caller>; duringFollow?: () => void } = {}) {
  const follows: Array<{ send: (event: JobEventRecord) => void; closed: number }> = [];
  const streams = {
    follow: async (_jobId: string, _after: number, sink: { send: (event: JobEventRecord) => void }) => {
      const follow = { send: sink.send, closed: 0 };
      follows.push(follow);
      options.duringFollow?.();
      return { close: () => void follow.closed++ };
    },
  } as unknown as JobStreamService;
  const statuses = {
    snapshot: async (_c: Caller, j: JobRecord, items: unknown[]) => ({
      success: true,
      status: j.status === 'completed' ? 'completed' : 'scraping',
      completed: items.length,
      total: items.length,
      creditsUsed: items.length,
      data: items.map(() => ({ metadata: { url: 'https://x.test/' } })),
    }),
  } as unknown as FirecrawlJobStatusService;
  const service = new FirecrawlWatcherService(
    { authenticate: options.authenticate ?? (async () => caller) } as unknown as AuthService,
    { consume: async () => undefined } as unknown as KeyRateLimit,
    { getRecord: async () => ({ ...job, status: 'completed' }) } as unknown as JobsService,
    { page: async () => ({ job, items: [], more: false }) } as unknown as ResultsService,
    streams,
    statuses,
  );
  // The first read is the running job (catchup); later reads see it completed.
  let reads = 0;
  (service as unknown as { jobs: { getRecord: () => Promise<JobRecord> } }).jobs.getRecord = async () =>
    reads++ === 0 ? job : { ...job, status: 'completed' };
  return { service, follows };
}

const origin = (headers: Record<string, string>) => ({ headers, protocol: 'http', hostname: '127.0.0.1' }) as never;

describe('the crawl watcher (WebSocket /v2/crawl/{id})', () => {
  it('takes the key from the subprotocol the SDK offers, or from Authorization', () => {
    expect(keyOfUpgrade({ 'sec-websocket-protocol': `${KEY}, other` })).toBe(`Bearer ${KEY}`);
    expect(keyOfUpgrade({ authorization: `Bearer ${KEY}`, 'sec-websocket-protocol': 'x' })).toBe(`Bearer ${KEY}`);
    expect(keyOfUpgrade({})).toBeUndefined();
  });

  it('sends catchup, each page as a document, then done, and closes', async () => {
    const { service, follows } = watcher();
    const ws = socket();
    await service.attach(ws, 'J1', origin({ 'sec-websocket-protocol': KEY }), '/v2/crawl/J1', 'r1');
    expect(ws.sent.map((m) => m.type)).toEqual(['catchup']);
    follows[0].send({
      event: 'result',
      seq: 5,
      data: { id: 'p1', url: 'https://x.test/', status: 'completed', data: {}, metadata: {} },
    } as never);
    follows[0].send({ event: 'complete', seq: 6, data: {} } as never);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ws.sent.map((m) => m.type)).toEqual(['catchup', 'document', 'done']);
    expect(ws.closes).toEqual([[1000, 'done']]);
  });

  it('a refused key gets an error message without the key, and a close 1008; nothing is followed', async () => {
    const { service, follows } = watcher({
      authenticate: async () => {
        throw new AppError('unauthorized', 'Unknown API key.');
      },
    });
    const ws = socket();
    await service.attach(ws, 'J1', origin({ 'sec-websocket-protocol': KEY }), '/v2/crawl/J1', 'r1');
    expect(ws.sent).toEqual([{ type: 'error', error: expect.stringMatching(/API key/) }]);
    expect(JSON.stringify(ws.sent)).not.toContain(KEY);
    expect(ws.closes).toEqual([[1008, 'refused']]);
    expect(follows).toHaveLength(0);
  });

  it('a client gone while the follower was being set up leaves no follower running', async () => {
    const ws = socket();
    const { service, follows } = watcher({ duringFollow: () => ws.hangUp() });
    await service.attach(ws, 'J1', origin({ 'sec-websocket-protocol': KEY }), '/v2/crawl/J1', 'r1');
    expect(follows[0].closed).toBe(1);
  });

  it('a client gone later closes its follower once', async () => {
    const ws = socket();
    const { service, follows } = watcher();
    await service.attach(ws, 'J1', origin({ 'sec-websocket-protocol': KEY }), '/v2/crawl/J1', 'r1');
    expect(follows[0].closed).toBe(0);
    ws.hangUp();
    expect(follows[0].closed).toBe(1);
  });
});
