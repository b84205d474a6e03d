/**
 * HTTP as the swarm test's clients speak it, from a container on the stack's overlay network: the API's
 * replicas are the addresses of `tasks.api` (DNS round robin; the service's virtual IP does not route on
 * this machine), each request on a fresh connection (so a replaced task is seen as the client sees it).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { lookup } from 'node:dns/promises';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

/** A request that got no HTTP answer: its error code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...). */
export class NoAnswer extends Error {
  constructor(
    readonly code: string,
    readonly address: string,
  ) {
    super(`no answer from ${address}: ${code}`);
  }
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** Every answer's text passes here (scenario 6 looks for secrets in them). */
export const answersSeen: { scan: (text: string) => void } = { scan: () => undefined };

export async function addresses(name: string): Promise<string[]> {
  try {
    return (await lookup(name, { all: true, family: 4 })).map((a) => a.address).sort();
  } catch {
    return [];
  }
}

export function call(host: string, port: number, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host, port, method, path, headers, agent: false, timeout: options.timeoutMs ?? 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e: NodeJS.ErrnoException) => reject(new NoAnswer(e.code ?? 'ECONNRESET', `${host}:${port}`)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        answersSeen.scan(text);
        let body: any = null;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new NoAnswer(e.code ?? e.message, `${host}:${port}`)));
    req.end(payload);
  });
}

/** The API through `tasks.<service>`, one replica after the other. */
export class Api {
  private next = 0;
  constructor(
    readonly key: string,
    readonly service = 'tasks.api',
    readonly port = 8080,
  ) {}

  async replicas(): Promise<string[]> {
    return addresses(this.service);
  }

  /** One request to the next replica (no retry: what a plain client sees). */
  async once(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const all = await this.replicas();
    if (all.length === 0) throw new NoAnswer('ENOTFOUND', this.service);
    const host = all[this.next++ % all.length];
    return call(host, this.port, method, path, { key: this.key, ...options });
  }

  /**
   * A scenario's own step (not what is measured): tried again on no answer, a 503 or a 429 until it gets
   * another answer or `patienceMs` pass, so a step survives the faults the scenario injects. A status in
   * `expected` is an answer too (a 502 the step means to cause).
   */
  async steady(
    method: string,
    path: string,
    options: CallOptions = {},
    patienceMs = 180_000,
    expected: readonly number[] = [],
  ): Promise<Answer> {
    const deadline = Date.now() + patienceMs;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const answer = await this.once(method, path, options);
        if (expected.includes(answer.status) || ![503, 429, 502].includes(answer.status)) return answer;
        last = new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
      } catch (error) {
        last = error;
      }
      await pause(1000);
    }
    throw new Error(`${method} ${path} got no usable answer in ${patienceMs} ms: ${String(last)}`);
  }

  async json(method: string, path: string, options: CallOptions = {}): Promise<any> {
    const answer = await this.steady(method, path, options);
    if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
    return answer.body;
  }
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until `done` answers a value, as long as `progress` keeps changing: the deadline is `idleMs` after
 * the last change, not a wall clock (the machine is shared and its speed varies 2-3×).
 */
export async function untilDone<T>(
  what: string,
  done: () => Promise<T | null | undefined | false>,
  progress: () => Promise<unknown>,
  idleMs = 180_000,
  everyMs = 1000,
): Promise<T> {
  let mark = JSON.stringify(await progress().catch(() => null));
  let changed = Date.now();
  for (;;) {
    const value = await done().catch(() => null);
    if (value) return value;
    const now = JSON.stringify(await progress().catch(() => null));
    if (now !== mark) {
      mark = now;
      changed = Date.now();
    } else if (Date.now() - changed > idleMs) {
      throw new Error(`${what}: no progress for ${idleMs / 1000} s (last: ${now})`);
    }
    await pause(everyMs);
  }
}

export interface StreamEvent {
  id: number;
  event: string;
  data: any;
}

/** One connection to a job's stream: its events until `complete` (then it is closed) or until it ends. */
function streamOnce(
  host: string,
  port: number,
  key: string,
  jobId: string,
  lastId: string | undefined,
  into: StreamEvent[],
): Promise<void> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${key}` };
    if (lastId) headers['last-event-id'] = lastId;
    const req = httpRequest({ host, port, path: `/api/v1/jobs/${jobId}/stream`, headers, agent: false, timeout: 120_000 }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolve();
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        answersSeen.scan(chunk);
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            const m = /^(\w+): ?(.*)$/.exec(line);
            if (m) fields[m[1]] = fields[m[1]] === undefined ? m[2] : `${fields[m[1]]}\n${m[2]}`;
          }
          if (!fields.event || fields.data === undefined) continue;
          into.push({ id: Number(fields.id ?? 0), event: fields.event, data: JSON.parse(fields.data) });
          if (fields.event === 'complete') {
            req.destroy();
            return resolve();
          }
        }
      });
      res.on('end', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve());
    req.end();
  });
}

/**
 * The events of a job's stream (SSE) until `complete`, reconnecting with Last-Event-ID when a connection
 * ends first (a replaced API task): for a finished job, the replay of all its events.
 */
export async function readStream(api: Api, jobId: string, patienceMs = 300_000): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  const deadline = Date.now() + patienceMs;
  while (Date.now() < deadline) {
    const all = await api.replicas();
    if (all.length > 0) {
      const last = events.length ? String(events[events.length - 1].id) : undefined;
      await streamOnce(all[Math.floor(Math.random() * all.length)], api.port, api.key, jobId, last, events);
      if (events.some((e) => e.event === 'complete')) return events;
    }
    await pause(1000);
  }
  throw new Error(`stream of ${jobId}: no complete event in ${patienceMs} ms`);
}
