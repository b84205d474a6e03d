/**
 * The crawl benchmark's site server (node:http on 127.0.0.1, any Host name). Every host serves the
 * same generated tree: `/` is node 0, `/n/<i>` is node i, node i links to its ten children
 * 10i+1 … 10i+10 (below the host's size) plus a "Home" link (a duplicate every crawler must drop).
 * Pages carry ~`bytes` of text, like an article. Extras:
 * - `hub.test/?from=A&to=B` links to the roots of `h<A>.test` … `h<B>.test` (multi-host crawls; a bare `/` links nowhere);
 * - per-host size and response delay (`delayMs`, for pages that take ~100 ms to answer);
 * - per-host 429 windows (`Retry-After`), for the politeness benchmark;
 * - a log of answered page requests per host (arrival times), to count pages/s from the site's side.
 * No robots.txt anywhere (404), so `respect_robots` is moot for every crawler.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { realPage } from './real-markup';

export interface HostRule {
  /** Pages of the tree on this host. */
  size: number;
  /** Every answer waits this long (ms). */
  delayMs: number;
}

export interface BenchSite {
  port: number;
  /** `http://<host>:<port><path>` */
  url(host: string, path?: string): string;
  /**
   * Default tree size and delay for every host (per-host overrides with `host`). `hostInTitle`: each page's
   * title names its host, so no two hosts serve the same bytes (a content-addressed archive keeps every page).
   * `realMarkup`: pages of 50–150 KB with a real page's furniture around the same facts (real-markup.ts; `bytes` unused).
   */
  configure(rule: Partial<HostRule> & { bytes?: number; hostInTitle?: boolean; realMarkup?: boolean }): void;
  host(name: string, rule: Partial<HostRule>): void;
  /** Answers 429 with `Retry-After: retryAfterS` on `name` until `untilMs` (ms since epoch). */
  limit(name: string, untilMs: number, retryAfterS: number): void;
  /** Answers 429 on `name` for `durationMs` from the first page request it gets (the window is then in `windows`). */
  limitFromFirstRequest(name: string, durationMs: number, retryAfterS: number): void;
  /** 429 windows as they happened: first request → end of the window (ms since epoch). */
  windows: Map<string, { from: number; until: number }>;
  /** Arrival times (ms since epoch) of 429 answers, per host. */
  refusedAt: Map<string, number[]>;
  /** Timestamps (ms since epoch) of 200 answers, per host; `clearLog` empties it. */
  answered: Map<string, number[]>;
  /** Count of 429 answers per host. */
  refused: Map<string, number>;
  clearLog(): void;
  close(): Promise<void>;
}

const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat'.split(
    ' ',
  );

function filler(seed: number, bytes: number): string {
  const paragraphs: string[] = [];
  let size = 0;
  let x = seed * 2654435761;
  while (size < bytes) {
    const words: string[] = [];
    for (let i = 0; i < 60; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      words.push(WORDS[x % WORDS.length]);
    }
    const p = `<p>${words.join(' ')}.</p>`;
    paragraphs.push(p);
    size += p.length;
  }
  return paragraphs.join('\n');
}

/** `extraAddresses`: more loopback addresses (127.0.0.2, ...) served on the same port, as distinct hosts any client can reach without a resolver. */
export async function startBenchSite(options: { extraAddresses?: string[] } = {}): Promise<BenchSite> {
  const defaults: HostRule = { size: 2000, delayMs: 0 };
  let bytes = 4000;
  let hostInTitle = false;
  let realMarkup = false;
  /** Real-markup pages by seed, with their title, facts and links left to fill in. */
  const realShells = new Map<number, string>();
  const rules = new Map<string, Partial<HostRule>>();
  const limits = new Map<string, { until: number; retryAfterS: number; durationMs?: number }>();
  const windows = new Map<string, { from: number; until: number }>();
  const refusedAt = new Map<string, number[]>();
  const answered = new Map<string, number[]>();
  const refused = new Map<string, number>();
  const bodies = new Map<number, string>(); // 64 filler texts (cached: generating them is not what is measured)
  let port = 0;

  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>
<header><nav><a href="/">Home</a></nav></header><main><h1>${title}</h1>${body}</main><footer><p>Bench site</p></footer></body></html>`;

  const handler: http.RequestListener = (req, res) => {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const host = hostHeader.replace(/:\d+$/, '');
    const url = new URL(req.url ?? '/', 'http://x');
    const rule = { ...defaults, ...rules.get(host) };
    const send = (status: number, body: string, headers: http.OutgoingHttpHeaders = {}) => {
      const buf = Buffer.from(body, 'utf8');
      const write = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': buf.length, ...headers });
        res.end(buf);
      };
      if (rule.delayMs > 0) setTimeout(write, rule.delayMs);
      else write();
    };
    const p = url.pathname;
    if (p === '/robots.txt' || p === '/favicon.ico') return send(404, 'none', { 'content-type': 'text/plain' });
    const limit = limits.get(host);
    if (limit && Number.isNaN(limit.until)) {
      // A window that starts at this host's first page request.
      limit.until = Date.now() + (limit.durationMs ?? 0);
      windows.set(host, { from: Date.now(), until: limit.until });
    }
    if (limit && Date.now() < limit.until) {
      refused.set(host, (refused.get(host) ?? 0) + 1);
      let at = refusedAt.get(host);
      if (!at) refusedAt.set(host, (at = []));
      at.push(Date.now());
      return send(429, page('Too many requests', '<p>Slow down.</p>'), { 'retry-after': String(limit.retryAfterS) });
    }
    if (host === 'hub.test') {
      // Only an explicit range links anywhere: every page's "Home" link leads back to a bare hub.test/,
      // which must not pull hosts of another range into a crawl.
      const from = Number(url.searchParams.get('from') ?? 1);
      const to = Number(url.searchParams.get('to') ?? url.searchParams.get('hosts') ?? 0);
      const links = Array.from(
        { length: Math.max(0, to - from + 1) },
        (_, i) => `<a href="http://h${from + i}.test:${port}/">h${from + i}</a>`,
      ).join(' ');
      return send(200, page('Hub', links));
    }
    const n = p === '/' ? 0 : Number(/^\/n\/(\d+)$/.exec(p)?.[1] ?? -1);
    if (!(n >= 0 && n < rule.size)) return send(404, page('Not found', '<p>No such page.</p>'));
    let log = answered.get(host);
    if (!log) answered.set(host, (log = []));
    log.push(Date.now());
    let text = bodies.get(n % 64);
    if (text === undefined) bodies.set(n % 64, (text = filler((n % 64) + 1, bytes)));
    const children: string[] = [];
    for (let c = n * 10 + 1; c <= n * 10 + 10 && c < rule.size; c++) children.push(`<li><a href="/n/${c}">Node ${c}</a></li>`);
    if (realMarkup) {
      const title = hostInTitle ? `Node ${n} of ${host}` : `Node ${n}`;
      const facts = `<p>Name: Node ${n}</p><p>Price: $${(n % 97) + 1}.00</p>`;
      const seed = (n % 64) + 1;
      let shell = realShells.get(seed);
      if (shell === undefined) realShells.set(seed, (shell = realPage(seed, '\u0001title\u0001', '\u0001facts\u0001', '\u0001tail\u0001')));
      const tail = `<ul class="children">${children.join('')}</ul>`;
      return send(200, shell.replaceAll('\u0001title\u0001', title).replace('\u0001facts\u0001', facts).replace('\u0001tail\u0001', tail));
    }
    send(
      200,
      page(
        hostInTitle ? `Node ${n} of ${host}` : `Node ${n}`,
        `<p>Name: Node ${n}</p><p>Price: $${(n % 97) + 1}.00</p>${text}<ul class="children">${children.join('')}</ul>`,
      ),
    );
  };
  const server = http.createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 1024, resolve));
  port = (server.address() as AddressInfo).port;
  const extra: http.Server[] = [];
  for (const address of options.extraAddresses ?? []) {
    const more = http.createServer(handler);
    more.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => more.listen(port, address, 1024, resolve));
    extra.push(more);
  }
  return {
    port,
    url: (host, path = '/') => `http://${host}:${port}${path}`,
    configure(rule) {
      if (rule.size !== undefined) defaults.size = rule.size;
      if (rule.delayMs !== undefined) defaults.delayMs = rule.delayMs;
      if (rule.hostInTitle !== undefined) hostInTitle = rule.hostInTitle;
      if (rule.realMarkup !== undefined) realMarkup = rule.realMarkup;
      if (rule.bytes !== undefined && rule.bytes !== bytes) {
        bytes = rule.bytes;
        bodies.clear();
      }
    },
    host: (name, rule) => void rules.set(name, { ...rules.get(name), ...rule }),
    limit: (name, untilMs, retryAfterS) => void limits.set(name, { until: untilMs, retryAfterS }),
    limitFromFirstRequest: (name, durationMs, retryAfterS) => void limits.set(name, { until: NaN, durationMs, retryAfterS }),
    windows,
    answered,
    refused,
    refusedAt,
    clearLog() {
      answered.clear();
      refused.clear();
      refusedAt.clear();
      windows.clear();
      limits.clear();
      rules.clear();
    },
    close: async () => {
      for (const one of [server, ...extra]) {
        await new Promise<void>((resolve) => {
          one.closeAllConnections();
          one.close(() => resolve());
        });
      }
    },
  };
}
