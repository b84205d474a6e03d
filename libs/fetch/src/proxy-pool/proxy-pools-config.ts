import { z } from 'zod';

/*
 * The operator's proxy pools (docs/proxies.md): GLEANER_PROXY_POOLS is a JSON object naming each pool, with its
 * proxy URLs (http, https or socks5, credentials in the URL) and, for sessions bound to an address, how long a
 * host keeps the same proxy. Callers only ever name a pool: a proxy URL from a caller would be a way around the
 * address guard.
 *
 *   {"residential": {"proxies": ["http://user:pass@10.0.0.5:3128"], "sticky_seconds": 600},
 *    "datacenter": ["socks5://dc-1.example:1080", "https://dc-2.example:443"]}
 */

/** What a request names to fetch without a proxy, whatever its site, crawl or monitor says. */
export const NO_PROXY = 'none';
export const POOL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const PROXY_PROTOCOLS = ['http:', 'https:', 'socks5:'] as const;
export type ProxyProtocol = (typeof PROXY_PROTOCOLS)[number];

/** One proxy of a pool. `label` (protocol, host and port) is what metrics, logs and answers may show. */
export interface ProxyEndpoint {
  protocol: ProxyProtocol;
  host: string;
  port: number;
  username?: string;
  password?: string;
  label: string;
}

export interface ProxyPoolConfig {
  name: string;
  proxies: ProxyEndpoint[];
  /** 0: a new proxy for every request; otherwise a host keeps its proxy this long (while the proxy is healthy). */
  stickyMs: number;
}

const DEFAULT_PORTS: Record<ProxyProtocol, number> = { 'http:': 80, 'https:': 443, 'socks5:': 1080 };

const poolSchema = z.union([
  z.array(z.string()).min(1),
  z.strictObject({ proxies: z.array(z.string()).min(1), sticky_seconds: z.number().int().min(0).max(86_400).optional() }),
]);

/**
 * Parses GLEANER_PROXY_POOLS (absent or blank: no pools). Throws an Error naming the pool and the proxy's
 * position, never the URL: a proxy URL carries its credentials.
 */
export function parseProxyPools(raw: string | undefined): Map<string, ProxyPoolConfig> {
  const pools = new Map<string, ProxyPoolConfig>();
  if (raw === undefined || raw.trim() === '') return pools;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error('GLEANER_PROXY_POOLS is not valid JSON (an object of pool name to proxy URLs; docs/proxies.md).');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error('GLEANER_PROXY_POOLS must be a JSON object of pool name to proxy URLs (docs/proxies.md).');
  for (const [name, value] of Object.entries(json)) {
    if (name === NO_PROXY || !POOL_NAME_PATTERN.test(name))
      throw new Error(
        `GLEANER_PROXY_POOLS: the pool name ${JSON.stringify(name.slice(0, 64))} is not allowed (lower case, digits, - and _; not "none").`,
      );
    const parsed = poolSchema.safeParse(value);
    if (!parsed.success)
      throw new Error(`GLEANER_PROXY_POOLS: pool ${name} must be a list of proxy URLs or {"proxies": [...], "sticky_seconds": n}.`);
    const urls = Array.isArray(parsed.data) ? parsed.data : parsed.data.proxies;
    const stickySeconds = Array.isArray(parsed.data) ? 0 : (parsed.data.sticky_seconds ?? 0);
    pools.set(name, {
      name,
      proxies: urls.map((url, i) => parseProxyUrl(url, `pool ${name}, proxy ${i + 1}`)),
      stickyMs: stickySeconds * 1000,
    });
  }
  return pools;
}

function parseProxyUrl(raw: string, where: string): ProxyEndpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`GLEANER_PROXY_POOLS: ${where} is not a URL.`);
  }
  const protocol = url.protocol as ProxyProtocol;
  if (!PROXY_PROTOCOLS.includes(protocol)) throw new Error(`GLEANER_PROXY_POOLS: ${where} must be http, https or socks5.`);
  if (url.pathname !== '/' && url.pathname !== '')
    throw new Error(`GLEANER_PROXY_POOLS: ${where} has a path; give scheme, host and port only.`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[protocol];
  return {
    protocol,
    host,
    port,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    label: `${protocol.slice(0, -1)}://${url.hostname}:${port}`,
  };
}
