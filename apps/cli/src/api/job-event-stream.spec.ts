import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, UnreachableError } from '../errors';
import { ApiClient } from './api-client';
import { followJobEvents, type ConnectionState, type JobEvent } from './job-event-stream';

type Handler = (req: IncomingMessage, res: ServerResponse, connection: number) => void;

/** A stand-in for GET /jobs/{id}/stream whose every connection is scripted by the test. */
async function sseServer(handler: Handler): Promise<{ url: string; lastEventIds: Array<string | undefined>; close(): Promise<void> }> {
  const lastEventIds: Array<string | undefined> = [];
  const server: Server = createServer((req, res) => {
    lastEventIds.push(req.headers['last-event-id'] as string | undefined);
    handler(req, res, lastEventIds.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lastEventIds,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const event = (id: number, name: string, data: unknown) => `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const head = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });

describe('followJobEvents', () => {
  it('resumes a dropped stream with Last-Event-ID and hands each event over once, in order', async () => {
    const server = await sseServer((_req, res, connection) => {
      head(res);
      if (connection === 1) {
        res.write(`retry: 50\n\n${event(1, 'status', { status: 'running' })}${event(2, 'result', { id: 'a' })}`);
        // Half an event, then the connection dies: it must not be handed over.
        res.write('id: 3\nevent: result\ndata: {"id"');
        setImmediate(() => res.destroy());
      } else if (connection === 2) {
        // A replica that replays a little too much: 2 again, then the rest.
        res.end(`: heartbeat\n\n${event(2, 'result', { id: 'a' })}${event(3, 'result', { id: 'b' })}`);
      } else {
        res.end(`${event(4, 'status', { status: 'completed' })}${event(5, 'complete', { status: 'completed' })}${event(6, 'status', {})}`);
      }
    });
    const events: JobEvent[] = [];
    const states: ConnectionState[] = [];
    try {
      const last = await followJobEvents(new ApiClient(server.url, 'glk_test', 'test'), {
        jobId: 'J1',
        signal: new AbortController().signal,
        reconnectTimeoutMs: 60_000,
        onEvent: (e) => void events.push(e),
        onConnection: (s) => states.push(s),
      });
      expect(last).toBe(5);
    } finally {
      await server.close();
    }
    expect(events.map((e) => [e.id, e.event])).toEqual([
      [1, 'status'],
      [2, 'result'],
      [3, 'result'],
      [4, 'status'],
      [5, 'complete'],
    ]);
    expect(events[2].data).toEqual({ id: 'b' });
    expect(server.lastEventIds).toEqual([undefined, '2', '3']);
    expect(states.map((s) => s.state)).toEqual(['connected', 'reconnecting', 'connected', 'reconnecting', 'connected']);
  });

  it('does not retry a job that is not there (404), and reports the problem', async () => {
    const server = await sseServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: '/problems/not-found', title: 'Not found', status: 404, detail: 'Job not found.' }));
    });
    try {
      const error = await followJobEvents(new ApiClient(server.url, 'k', 'test'), {
        jobId: 'nope',
        signal: new AbortController().signal,
        reconnectTimeoutMs: 60_000,
        onEvent: () => undefined,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).problem.detail).toBe('Job not found.');
      expect(server.lastEventIds).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('gives up with UnreachableError when the service stays away past the reconnect timeout', async () => {
    const server = await sseServer((_req, res) => res.destroy());
    try {
      const error = await followJobEvents(new ApiClient(server.url, 'k', 'test'), {
        jobId: 'J',
        signal: new AbortController().signal,
        reconnectTimeoutMs: 1,
        onEvent: () => undefined,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnreachableError);
      expect((error as Error).message).toMatch(/the job stream dropped and did not come back within 0 s/);
    } finally {
      await server.close();
    }
  });

  it("a consumer's own failure ends the stream with that error (no reconnecting)", async () => {
    const server = await sseServer((_req, res) => {
      head(res);
      res.write(event(1, 'result', { id: 'a' }));
    });
    try {
      const error = await followJobEvents(new ApiClient(server.url, 'k', 'test'), {
        jobId: 'J',
        signal: new AbortController().signal,
        reconnectTimeoutMs: 60_000,
        onEvent: () => {
          throw new Error('disk full');
        },
      }).catch((e: unknown) => e);
      expect((error as Error).message).toBe('disk full');
      expect(server.lastEventIds).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
