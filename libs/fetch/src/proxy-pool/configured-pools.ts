import { Counter, type Registry } from 'prom-client';
import { ProxyPools, type ProxyCounters } from './proxy-pool';
import { parseProxyPools } from './proxy-pools-config';

/*
 * The process's pools (docs/proxies.md), set when the app starts (PageLoaderService, from GLEANER_PROXY_POOLS):
 * the request rules that answer an unknown pool with the known ones run in class-validator and have no injector
 * to ask, so they read them here. The fetcher is handed its pools when it is made.
 */
let configured = new ProxyPools(new Map());

/** Parses the operator's pools (throws, naming no URL, when they do not parse) and makes them the process's. */
export function useProxyPools(raw: string | undefined, counters?: ProxyCounters): ProxyPools {
  configured = new ProxyPools(parseProxyPools(raw), counters);
  return configured;
}

export function configuredProxyPools(): ProxyPools {
  return configured;
}

/** Prometheus counters per pool and proxy label (protocol, host, port: never the credentials). */
export function proxyPoolCounters(registry: Registry): ProxyCounters {
  const make = (name: string, help: string) =>
    (registry.getSingleMetric(name) as Counter<'pool' | 'proxy'> | undefined) ??
    new Counter({ name, help, labelNames: ['pool', 'proxy'], registers: [registry] });
  const requests = make(
    'gleaner_proxy_requests_total',
    'Connections a proxy pool sent through each proxy, by pool and proxy (scheme://host:port). Unit: connections.',
  );
  const failures = make(
    'gleaner_proxy_failures_total',
    'Proxies that could not be reached or refused the tunnel, by pool and proxy. Unit: failures.',
  );
  const rested = make(
    'gleaner_proxy_rested_total',
    'Times a proxy was rested after a failure (backoff before it is used again), by pool and proxy. Unit: rests.',
  );
  return {
    start: (pool, proxy) => {
      for (const counter of [requests, failures, rested]) counter.inc({ pool, proxy }, 0);
    },
    request: (pool, proxy) => requests.inc({ pool, proxy }),
    failure: (pool, proxy) => failures.inc({ pool, proxy }),
    rested: (pool, proxy) => rested.inc({ pool, proxy }),
  };
}
