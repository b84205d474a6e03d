/**
 * The test site of `npm run test:swarm`, served from inside the swarm (a service on the stack's overlay
 * network): a tree of product pages per crawl, `/c/<tag>/n/<i>?size=N` linking to its ten children
 * 10i+1 … 10i+10 below N (the root is `/c/<tag>/n/0?size=N`). Every page names a product, its price and its
 * SKU, for the stand-in model. `GET /_stats?tag=<tag>` answers how many times each page of a crawl was
 * fetched (the scenarios' "each URL once"); `/product/<i>` is a single page for extracts; `/r/<tag>/...` is
 * the same tree with a 429 (Retry-After: 1) the first time each page is asked for; POST /hook takes webhooks.
 * On the next port, the tests' login site (test/fixtures/login-site) with this service's name as its member host.
 */
import { createServer } from 'node:http';
import { startLoginSite } from '../../fixtures/login-site/login-site';

const port = Number(process.env.SITE_PORT ?? 8000);
const fetches = new Map<string, Map<string, number>>();
const answered429 = new Set<string>();

function page(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}

function product(n: number): string {
  return `<p>Name: Product ${n}</p><p>Price: $${(n % 97) + 1}.99</p><p>SKU: SKU-${String(n).padStart(6, '0')}</p>`;
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://site');
  const send = (status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  if (url.pathname === '/_stats') {
    return send(200, 'application/json', JSON.stringify(Object.fromEntries(fetches.get(url.searchParams.get('tag') ?? '') ?? [])));
  }
  if (url.pathname === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nAllow: /\n');
  // Webhook deliveries (scenario 7 needs one for the delivery panels).
  if (req.method === 'POST' && url.pathname === '/hook') {
    req.resume();
    return send(204, 'text/plain', '');
  }
  // A tree whose every page answers 429 (Retry-After: 1) the first time it is asked for: rate-limit pauses.
  const limited = /^\/r\/([\w-]+)\/n\/(\d+)$/.exec(url.pathname);
  if (limited && !answered429.has(url.pathname + url.search)) {
    answered429.add(url.pathname + url.search);
    res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
    return res.end('slow down');
  }
  const single = /^\/product\/(\d+)$/.exec(url.pathname);
  if (single) return send(200, 'text/html', page(`Product ${single[1]}`, product(Number(single[1]))));
  const m = /^\/[cr]\/([\w-]+)\/n\/(\d+)$/.exec(url.pathname);
  const size = Number(url.searchParams.get('size') ?? 1000);
  if (m && Number(m[2]) < size) {
    const [, tag, nText] = m;
    const n = Number(nText);
    const seen = fetches.get(tag) ?? new Map<string, number>();
    fetches.set(tag, seen);
    seen.set(`${url.pathname}${url.search}`, (seen.get(`${url.pathname}${url.search}`) ?? 0) + 1);
    const children = Array.from({ length: 10 }, (_, i) => n * 10 + i + 1)
      .filter((c) => c < size)
      .map((c) => `<a href="${url.pathname.slice(0, 2)}/${tag}/n/${c}?size=${size}">item ${c}</a>`)
      .join(' ');
    return send(200, 'text/html', page(`Product ${n}`, `${product(n)}<nav>${children}</nav>`));
  }
  send(404, 'text/html', page('Not found', ''));
});

server.listen(port, '0.0.0.0', () => console.log(`test site listening on 0.0.0.0:${port}`));
// A site behind a form login on the next port, this service's own name its member host: an auth profile's login
// (scenario 7: the dashboard's auth-profile panel has data). Its credentials are the fixture's test ones.
void startLoginSite({ memberHost: process.env.SITE_NAME ?? 'gleaner-testsite', listen: { host: '0.0.0.0', port: port + 1 } }).then(
  (login) => console.log(`login site listening on 0.0.0.0:${login.port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
