import { Injectable } from '@nestjs/common';
import { AuthService, KeyRateLimit, satisfies, type Caller } from '@app/auth';
import { JobStreamService, JobsService, onCrawlEngine, type JobEventRecord, type JobRecord } from '@app/jobs';
import { ResultsService, type RequestOrigin, type ResultItem } from '@app/results';
import { firecrawlError } from './wire/errors';
import { FirecrawlJobStatusService } from './job-status.service';
import type { WatcherMessage } from './wire/responses';

/** What the watcher needs of a WebSocket (the `ws` socket @fastify/websocket hands over). */
export interface WatcherSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'close', listener: () => void): unknown;
}

const OPEN = 1;
/** Results sent in the first (`catchup`) message at most; the rest follow as `document` messages or by the status read. */
const CATCHUP_LIMIT = 1000;

/**
 * The key a WebSocket client sends: Firecrawl's JS SDK puts it in the subprotocol list (`new WebSocket(url, key)`),
 * firecrawl-py sends `Authorization`. The app selects that subprotocol in the 101 (the one echo of a credential,
 * to its own sender: docs/security.md "The Firecrawl watcher's subprotocol"); it appears in no message or log.
 */
export function keyOfUpgrade(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.length > 0) return auth;
  const protocols = headers['sec-websocket-protocol'];
  const first = (Array.isArray(protocols) ? protocols[0] : protocols)?.split(',')[0]?.trim();
  return first ? `Bearer ${first}` : undefined;
}

/**
 * The crawl watcher of /v2 (GET /v2/crawl/{id} and /v2/batch/scrape/{id} upgraded to a WebSocket): the job's
 * results so far (`catchup`), each new page (`document`), then `done` (or `error` when the job failed, a
 * `cancelled` status when cancelled), as Firecrawl's server sends them; read from the job's event log, so any
 * replica serves any job. The key is checked as for any request (scope `crawl`, the per-key rate limit).
 */
@Injectable()
export class FirecrawlWatcherService {
  constructor(
    private readonly auth: AuthService,
    private readonly rateLimit: KeyRateLimit,
    private readonly jobs: JobsService,
    private readonly results: ResultsService,
    private readonly streams: JobStreamService,
    private readonly statuses: FirecrawlJobStatusService,
  ) {}

  async attach(socket: WatcherSocket, jobId: string, origin: RequestOrigin, path: string, requestId: string): Promise<void> {
    const send = (message: WatcherMessage) => {
      if (socket.readyState === OPEN) socket.send(JSON.stringify(message));
    };
    let caller: Caller;
    // The client may close at any point, even before the follower exists (right after `catchup`): it is then closed at once.
    let stopFollowing: (() => void) | null = null;
    let gone = false;
    socket.on('close', () => {
      gone = true;
      stopFollowing?.();
    });
    try {
      caller = await this.auth.authenticate(keyOfUpgrade(origin.headers));
      await this.rateLimit.consume(caller, { header: () => undefined });
      if (!satisfies(caller, { scope: 'crawl' })) throw new Error('This endpoint needs the crawl scope.');
      const job = await this.jobs.getRecord(caller, jobId);
      if (!onCrawlEngine(job.type)) throw new Error('Job not found.');
      const { items } = await this.results.page(caller, jobId, 0, CATCHUP_LIMIT);
      send({ type: 'catchup', data: await this.statuses.snapshot(caller, job, items, origin) });
      // One event at a time, in order: a page's document always goes out before the job's `done`.
      let queue = Promise.resolve();
      const follower = await this.streams.follow(jobId, job.event_seq, {
        send: (event) => {
          queue = queue.then(() => this.forward(caller, job, event, origin, send, socket)).catch(() => undefined);
        },
        closed: () => undefined,
      });
      if (gone || socket.readyState !== OPEN) follower.close();
      else stopFollowing = follower.close;
    } catch (error) {
      send({ type: 'error', error: firecrawlError(error, path, requestId).body.error });
      socket.close(1008, 'refused');
    }
  }

  private async forward(
    caller: Caller,
    job: JobRecord,
    event: JobEventRecord,
    origin: RequestOrigin,
    send: (message: WatcherMessage) => void,
    socket: WatcherSocket,
  ): Promise<void> {
    if (event.event === 'result') {
      const item = event.data as unknown as ResultItem;
      if (item.status !== 'completed') return;
      const { data } = await this.statuses.snapshot(caller, job, [item], origin);
      send({ type: 'document', data: data[0] });
      return;
    }
    if (event.event !== 'complete') return;
    const ended = await this.jobs.getRecord(caller, job._id);
    const snapshot = await this.statuses.snapshot(caller, ended, [], origin);
    if (snapshot.status === 'failed') send({ type: 'error', error: snapshot.error ?? 'The job failed.' });
    // Firecrawl's SDK ends a watch on a snapshot whose status is final; its `done` message means completed.
    else if (snapshot.status === 'cancelled') send({ type: 'status', data: snapshot });
    else send({ type: 'done', data: snapshot });
    socket.close(1000, 'done');
  }
}
