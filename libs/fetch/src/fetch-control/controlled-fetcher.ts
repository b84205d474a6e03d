import type { FetchOptions } from '../fetch-types';
import { throughPool, type PlainFetcher } from '../proxy-pool/through-pool';
import type { FetchControl } from './fetch-control';

/*
 * The fetches a job makes without the page loader (docs/architecture.md "The page pipeline"): a crawl's
 * robots.txt and sitemaps, a paginated extract's robots.txt, an auth profile's login, POST /map's reads. Each
 * takes the job's opened fetch control (FetchControl) whole and this module decides what of it applies, so a
 * fetch option reaches them without their files naming it.
 */

/**
 * A fetcher whose every fetch carries `control` under the fetch's own options (the fetch's own win), through the
 * control's proxy pool, looked up per fetch: a pool the operator removed fails the fetch (UnconfiguredProxyPool),
 * never goes direct. The auth profile is not applied here: a session comes with its login (PageLoaderService).
 */
export function controlledFetcher(fetcher: PlainFetcher, control: FetchControl): PlainFetcher {
  const { authProfile: _session, proxyPool, ...carried } = control;
  const pooled = throughPool(fetcher, proxyPool);
  if (Object.keys(carried).length === 0) return pooled;
  const under = (own: FetchOptions = {}): FetchOptions => ({ ...carried, ...own });
  return {
    fetch: async (url, own) => pooled.fetch(url, under(own)),
    fetchRaw: async (url, own) => pooled.fetchRaw(url, under(own)),
  };
}

/** The part of a job's fetch control its reads besides its pages take (sideReadControl). */
export type SideReadControl = Pick<FetchControl, 'proxyPool'>;

/**
 * What of a job's fetch control its reads besides its pages take (robots.txt, sitemaps, an auth profile's login):
 * where they leave from, its proxy pool (docs/proxies.md: the site never sees the operator's own address for a job
 * that names one). Its headers, cookies, User-Agent, wait_for and session are its pages' own. A new fetch option
 * decides here whether those reads take it.
 */
export function sideReadControl(control: FetchControl): SideReadControl {
  return control.proxyPool ? { proxyPool: control.proxyPool } : {};
}

/** `fetcher` for a job's reads besides its pages (robots.txt, sitemaps): with the part of `control` they take. */
export function sideReadFetcher(fetcher: PlainFetcher, control: FetchControl): PlainFetcher {
  return controlledFetcher(fetcher, sideReadControl(control));
}
