/**
 * The fixture site of the learned-extraction benchmark: every benchmark site on one loopback port,
 * told apart by the Host header (GLEANER_RESOLVE maps `*.test` to 127.0.0.1). Each site has an index
 * page linking every page (`a.bench-page`), so a crawl from `/` reaches them all, and an index per part
 * (`/dev/`, `/heldout/`: learned/split.ts) linking that part's pages. A site with
 * `driftAfter` changes its template once that many of its pages were served: every page served from
 * then on is the drifted copy (renamed classes, reordered blocks), whatever the crawl's order.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drift, type BenchPage } from './corpus';

export interface SiteSpec {
  host: string;
  pages: BenchPage[];
  /** Index pages of parts of the site: `/<name>/` links the pages of these paths. */
  parts?: Record<string, string[]>;
  /** Serve the drifted template from the (driftAfter + 1)-th distinct page on. */
  driftAfter?: number;
}

export interface Served {
  host: string;
  path: string;
  /** 1-based: the n-th distinct page of its host served. */
  order: number;
  drifted: boolean;
}

export interface BenchSite {
  port: number;
  resolve: string;
  url(host: string, path?: string): string;
  /** The page a URL of this site names (by host and path), or undefined. */
  page(url: string): BenchPage | undefined;
  /** Distinct pages served, in the order first served. */
  served(host: string): Served[];
  close(): Promise<void>;
}

export async function startBenchSite(specs: SiteSpec[]): Promise<BenchSite> {
  const sites = new Map(specs.map((s) => [s.host, { spec: s, byPath: new Map(s.pages.map((p) => [p.path, p])) }]));
  const served = new Map<string, Map<string, Served>>();
  const drifted = new Map<string, string>();

  function index(spec: SiteSpec, paths: string[]): string {
    const links = paths.map((p, i) => `<li><a class="bench-page" href="${p}">Page ${i + 1}</a></li>`).join('\n');
    return `<!doctype html><html><head><meta charset="utf-8"><title>${spec.host}</title></head><body><h1>${spec.host}</h1><ul>\n${links}\n</ul></body></html>`;
  }

  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, body: string, type = 'text/html; charset=utf-8'): void => {
      const buf = Buffer.from(body, 'utf8');
      res.writeHead(status, { 'content-type': type, 'content-length': buf.length });
      res.end(req.method === 'HEAD' ? undefined : buf);
    };
    const site = sites.get(host);
    if (!site) return send(404, 'unknown host', 'text/plain');
    if (path === '/robots.txt') return send(200, 'User-agent: *\nAllow: /\n', 'text/plain');
    if (path === '/')
      return send(
        200,
        index(
          site.spec,
          site.spec.pages.map((p) => p.path),
        ),
      );
    const part = /^\/([\w-]+)\/$/.exec(path)?.[1];
    if (part && site.spec.parts?.[part]) return send(200, index(site.spec, site.spec.parts[part]));
    const page = site.byPath.get(path);
    if (!page) return send(404, '<html><body><p>No such page.</p></body></html>');
    let log = served.get(host);
    if (!log) served.set(host, (log = new Map()));
    let entry = log.get(path);
    if (!entry) {
      const isDrifted = site.spec.driftAfter !== undefined && log.size >= site.spec.driftAfter;
      entry = { host, path, order: log.size + 1, drifted: isDrifted };
      log.set(path, entry);
    }
    if (!entry.drifted) return send(200, page.html);
    const key = `${host}${path}`;
    if (!drifted.has(key)) drifted.set(key, drift(page.html));
    return send(200, drifted.get(key)!);
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    resolve: '*.test=127.0.0.1',
    url: (host, path = '/') => `http://${host}:${port}${path}`,
    page(url) {
      try {
        const u = new URL(url);
        return sites.get(u.hostname.toLowerCase())?.byPath.get(u.pathname);
      } catch {
        return undefined;
      }
    },
    served: (host) => [...(served.get(host)?.values() ?? [])],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
