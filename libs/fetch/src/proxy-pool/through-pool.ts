import type { FetchOptions } from '../fetch-types';
import type { StaticFetcher } from '../static-fetcher';
import { configuredProxyPools } from './configured-pools';
import type { ProxyPools } from './proxy-pool';
import { NO_PROXY } from './proxy-pools-config';

export type PlainFetcher = Pick<StaticFetcher, 'fetch' | 'fetchRaw'>;

/**
 * A static fetcher whose every fetch goes through the named pool: what a crawl reads besides its pages (robots.txt,
 * sitemaps) and POST /map go where the pages go, so the operator's own address is not shown for them either
 * (docs/proxies.md). The pool is looked up per fetch: one the operator removed fails the fetch, never goes direct.
 */
export function throughPool<F extends PlainFetcher>(
  fetcher: F,
  name: string | null | undefined,
  pools: ProxyPools = configuredProxyPools(),
): PlainFetcher {
  if (!name || name === NO_PROXY) return fetcher;
  const via = (options: FetchOptions = {}): FetchOptions => ({ ...options, proxy: pools.get(name) });
  return {
    fetch: async (url, options) => fetcher.fetch(url, via(options)),
    fetchRaw: async (url, options) => fetcher.fetchRaw(url, via(options)),
  };
}
