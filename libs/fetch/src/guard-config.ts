import { isIP } from 'node:net';
import { AddressGuard, normaliseHost, systemResolver, type ResolvedAddress, type Resolver } from './address-guard';

/** Where the guard writes what its messages leave out (a pino logger). */
export interface RefusalLog {
  info(fields: object, message: string): void;
}

/** A static name → address entry (GLEANER_RESOLVE): `intranet.example` or a wildcard `*.test`. */
export interface StaticResolveEntry {
  host: string;
  address: string;
}

/**
 * Resolves names from a static table first (like curl's --resolve or an /etc/hosts the operator
 * controls), then through DNS. Wildcards (`*.example`) match any subdomain, not the bare name. The
 * guard still vets the address it returns, so a mapping never opens a forbidden range by itself.
 */
export function staticResolver(entries: readonly StaticResolveEntry[], fallback: Resolver = systemResolver): Resolver {
  const exact = new Map<string, ResolvedAddress>();
  const wildcards: Array<{ suffix: string; address: ResolvedAddress }> = [];
  for (const entry of entries) {
    const family = isIP(entry.address);
    if (!family) throw new Error(`GLEANER_RESOLVE: ${entry.address} is not an IP address`);
    const address: ResolvedAddress = { address: entry.address, family: family === 6 ? 6 : 4 };
    const host = normaliseHost(entry.host);
    if (host.startsWith('*.')) wildcards.push({ suffix: host.slice(1), address });
    else exact.set(host, address);
  }
  if (exact.size === 0 && wildcards.length === 0) return fallback;
  return async (hostname) => {
    const host = normaliseHost(hostname);
    const hit = exact.get(host) ?? wildcards.find((w) => host.endsWith(w.suffix))?.address;
    return hit ? [hit] : fallback(hostname);
  };
}

export interface GuardSettings {
  allowPrivateNetworks: boolean;
  allowNetworks?: readonly string[];
  resolve?: readonly StaticResolveEntry[];
}

/**
 * The address guard every outbound request of the service uses, built from the configuration. A refused
 * name's address is logged (at info) to `log`, as the refusal's message does not tell it (docs/security.md).
 */
export function guardFromSettings(settings: GuardSettings, log?: RefusalLog): AddressGuard {
  return new AddressGuard({
    allowPrivateNetworks: settings.allowPrivateNetworks,
    allowCidrs: settings.allowNetworks ?? [],
    resolver: staticResolver(settings.resolve ?? []),
    onRefusal: log && ((refusal) => log.info({ guard_refusal: refusal }, `The address guard refused ${refusal.host}.`)),
  });
}
