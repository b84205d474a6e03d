/**
 * A site for the map benchmark (node:http on 127.0.0.1): robots.txt names a sitemap index of
 * `files` gzip sitemaps of `perFile` URLs each (50,000 by default), and the home page links to 20
 * pages. Bodies are made once, before anything is measured.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface SitemapSite {
  url: string;
  urls: number;
  close(): Promise<void>;
}

export async function startSitemapSite(files = 10, perFile = 5000): Promise<SitemapSite> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 1024, resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bodies = new Map<string, { type: string; body: Buffer }>();
  bodies.set('/robots.txt', {
    type: 'text/plain',
    body: Buffer.from(`User-agent: *\nDisallow: /private/\nSitemap: ${base}/sitemap_index.xml\n`),
  });
  const index = Array.from({ length: files }, (_, f) => `<sitemap><loc>${base}/sitemaps/products-${f}.xml.gz</loc></sitemap>`).join('');
  bodies.set('/sitemap_index.xml', {
    type: 'application/xml',
    body: Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${index}</sitemapindex>`,
    ),
  });
  for (let f = 0; f < files; f++) {
    const urls = Array.from(
      { length: perFile },
      (_, i) => `<url><loc>${base}/product/${f * perFile + i}?colour=blue&amp;size=m</loc><lastmod>2026-11-01</lastmod></url>`,
    ).join('');
    const xml = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;
    bodies.set(`/sitemaps/products-${f}.xml.gz`, { type: 'application/gzip', body: gzipSync(xml) });
  }
  const links = Array.from({ length: 20 }, (_, i) => `<a href="/category/${i}">Category ${i}</a>`).join(' ');
  bodies.set('/', {
    type: 'text/html',
    body: Buffer.from(`<!doctype html><html><head><title>Shop</title></head><body>${links}</body></html>`),
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const found = bodies.get(new URL(req.url ?? '/', base).pathname);
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
      return;
    }
    res.writeHead(200, { 'content-type': found.type, 'content-length': found.body.length }).end(found.body);
  });
  return {
    url: base,
    urls: files * perFile,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
