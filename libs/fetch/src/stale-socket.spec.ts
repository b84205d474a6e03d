import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressGuard } from './address-guard';
import { isStaleSocketReset } from './request-errors';
import { StaticFetcher } from './static-fetcher';

/*
 * A kept-alive connection that the server closed while idle is reset when the client reuses it (the race between
 * the server's keep-alive timeout and the next request). The server here resets every connection on its second
 * request, so each reuse meets the race deterministically.
 */

interface ResettingServer {
  url: string;
  /** Requests that were answered, and connections opened. */
  answered: string[];
  connections: number;
  close(): Promise<void>;
}

async function resettingServer(
  options: { resetEvery: 'reuse' | 'always-after-first' } = { resetEvery: 'reuse' },
): Promise<ResettingServer> {
  const answered: string[] = [];
  let connections = 0;
  let firstDone = false;
  const perSocket = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const seen = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, seen);
    const reset = options.resetEvery === 'reuse' ? seen > 1 : firstDone;
    if (reset) {
      req.socket.destroy();
      return;
    }
    firstDone = true;
    answered.push(`${req.method} ${req.url}`);
    const status = req.url === '/bad' ? 502 : 200;
    res.writeHead(status, { 'content-type': 'text/html', 'content-length': 11 });
    res.end('<p>page</p>');
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function fetcher(): StaticFetcher {
  return new StaticFetcher({ guard: new AddressGuard({ allowCidrs: ['127.0.0.0/8'] }), timeoutMs: 10_000 });
}

describe('a reused keep-alive connection found closed', () => {
  let server: ResettingServer;
  let client: StaticFetcher;
  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  it('sends the GET again on a new connection: the page is fetched, not a fetch_error', async () => {
    server = await resettingServer();
    client = fetcher();
    await expect(client.fetchRaw(`${server.url}/one`)).resolves.toMatchObject({ status: 200 });
    // The second request goes on the kept-alive connection, which the server resets.
    await expect(client.fetchRaw(`${server.url}/two`)).resolves.toMatchObject({ status: 200 });
    // A status answer keeps its status (the failed CLI run reported ECONNRESET for a page answering 502).
    await expect(client.fetchRaw(`${server.url}/bad`)).resolves.toMatchObject({ status: 502 });
    expect(server.answered).toEqual(['GET /one', 'GET /two', 'GET /bad']);
    expect(server.connections).toBe(3);
  });

  it('a reset on a new connection is the fetch failure it is, not retried', async () => {
    server = await resettingServer({ resetEvery: 'always-after-first' });
    client = fetcher();
    await client.fetchRaw(`${server.url}/one`);
    // Reused connection reset, then each new connection reset too: retried a bounded number of times, then failed.
    await expect(client.fetchRaw(`${server.url}/two`)).rejects.toMatchObject({ category: 'fetch_error' });
    expect(server.answered).toEqual(['GET /one']);
    // One kept-alive attempt and one on a new connection: a new connection's reset is not a stale socket.
    expect(server.connections).toBe(2);
  });

  it('a form POST is never sent twice', async () => {
    server = await resettingServer();
    client = fetcher();
    await client.fetchRaw(`${server.url}/one`);
    await expect(client.fetchRaw(`${server.url}/login`, { form: { user: 'u' } })).rejects.toMatchObject({ category: 'fetch_error' });
    expect(server.connections).toBe(1);
  });

  it('knows a stale reset by its code', () => {
    expect(isStaleSocketReset(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isStaleSocketReset(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isStaleSocketReset(null)).toBe(false);
  });
});
