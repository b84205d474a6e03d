/**
 * The browser soak's site (`npm run soak:browser`): every page is JavaScript-only (the body is empty until an
 * inline script renders its text and links), on one host served by 127.0.0.1. Page /p/<n> links to
 * /p/<10n+1>..<10n+10>; by its number a page is one of:
 * - rendered (most pages): title, price and ten links, written by script;
 * - hang-net: the server sends the head and never finishes the response (the browser waits for DOMContentLoaded);
 * - hang-js: rendered, then the script loops forever (the tab never answers again);
 * - crash: the script allocates until the tab's heap cap kills the tab;
 * - endless: rendered, then a request every 50 ms for as long as the tab lives (the network is never idle).
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type PageKind = 'rendered' | 'hang-net' | 'hang-js' | 'crash' | 'endless';

/** One page in twenty of each special kind. */
export function kindOf(n: number): PageKind {
  switch (n % 20) {
    case 7:
      return 'hang-net';
    case 13:
      return 'hang-js';
    case 3:
      return 'crash';
    case 17:
      return 'endless';
    default:
      return 'rendered';
  }
}

export interface JsSite {
  port: number;
  host: string;
  url(path: string): string;
  resolve: string;
  /** Requests by page kind (documents only), and the pings of endless pages. */
  served: Record<PageKind | 'ping', number>;
  /** The hang-net requests: when each came, and when the browser closed it (null: still open). */
  hangs(): Array<{ path: string; at: number; closedAt: number | null }>;
  /** The longest time one load of an endless page kept sending requests (its tab lived that long). */
  longestPingSpan(): number;
  close(): Promise<void>;
}

const HOST = 'js.test';

function renderedPage(n: number, tail: string): string {
  const links = Array.from({ length: 10 }, (_, i) => 10 * n + i + 1);
  return `<!doctype html><html><head><meta charset="utf-8"><title>Page ${n}</title></head><body><main id="app"></main>
<script>
  const app = document.getElementById('app');
  const h1 = document.createElement('h1'); h1.textContent = 'Product ${n}'; app.appendChild(h1);
  const p = document.createElement('p'); p.textContent = 'Price: $' + (${n} % 97 + 0.99).toFixed(2); app.appendChild(p);
  const ul = document.createElement('ul');
  for (const k of ${JSON.stringify(links)}) {
    const li = document.createElement('li'); const a = document.createElement('a');
    a.href = '/p/' + k; a.textContent = 'Product ' + k; li.appendChild(a); ul.appendChild(li);
  }
  app.appendChild(ul);
  ${tail}
</script></body></html>`;
}

export async function startJsSite(): Promise<JsSite> {
  const served: JsSite['served'] = { rendered: 0, 'hang-net': 0, 'hang-js': 0, crash: 0, endless: 0, ping: 0 };
  const sockets = new Set<Socket>();
  const hangs: Array<{ path: string; at: number; closedAt: number | null }> = [];
  const pings = new Map<string, { first: number; last: number }>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === '/ping') {
      served.ping++;
      const load = new URL(req.url ?? '/', 'http://x').searchParams.get('load') ?? '';
      const span = pings.get(load) ?? { first: Date.now(), last: Date.now() };
      span.last = Date.now();
      pings.set(load, span);
      return void res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('pong');
    }
    const match = /^\/(?:p\/(\d+))?$/.exec(path);
    if (!match) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not found</p>');
    const n = Number(match[1] ?? 0);
    const kind = n === 0 ? 'rendered' : kindOf(n);
    served[kind]++;
    const html = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
    switch (kind) {
      case 'hang-net': {
        // The head, then nothing: the document never finishes, DOMContentLoaded never fires.
        const hang = { path, at: Date.now(), closedAt: null as number | null };
        hangs.push(hang);
        res.on('close', () => (hang.closedAt = Date.now()));
        res.writeHead(200, html);
        res.write('<!doctype html><html><head><title>Never</title></head><body><p>Loading');
        return;
      }
      case 'hang-js':
        return void res
          .writeHead(200, html)
          .end(renderedPage(n, "addEventListener('load', () => setTimeout(() => { for (;;) {} }, 100));"));
      case 'crash':
        return void res
          .writeHead(200, html)
          .end(renderedPage(n, 'setTimeout(() => { const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random())); }, 0);'));
      case 'endless':
        return void res
          .writeHead(200, html)
          .end(renderedPage(n, "const load = Math.random(); setInterval(() => fetch('/ping?load=' + load).catch(() => undefined), 50);"));
      default:
        return void res.writeHead(200, html).end(renderedPage(n, ''));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    host: HOST,
    url: (path) => `http://${HOST}:${port}${path}`,
    resolve: `${HOST}=127.0.0.1`,
    served,
    hangs: () => hangs.map((h) => ({ ...h })),
    longestPingSpan: () => Math.max(0, ...[...pings.values()].map((p) => p.last - p.first)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
