import { lookup as dnsLookup } from 'node:dns/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { classifyIp, METADATA_HOST_NAMES, metadataRange, parseCidr, type Cidr } from './ip-ranges';
import { fetchError } from './errors';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; injectable so tests can map names without /etc/hosts. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressGuardOptions {
  /** GLEANER_ALLOW_PRIVATE_NETWORKS: lifts the guard entirely (development, tests). */
  allowPrivateNetworks?: boolean;
  /** Host names that may resolve to forbidden addresses (an operator's intranet host, a test alias). */
  allowHosts?: readonly string[];
  /** Address ranges that are allowed although they are in a forbidden range (e.g. "10.20.0.0/16"). */
  allowCidrs?: readonly string[];
  /** Defaults to the system resolver (dns.lookup, all addresses). */
  resolver?: Resolver;
  /** Told every refusal of a name with the address it resolved to, which the refusal's message leaves out (for the log). */
  onRefusal?: RefusalListener;
}

/** A name the guard refused, and why: the resolved address goes to the log, never into the error message. */
export interface GuardRefusal {
  host: string;
  address: string;
  reason: string;
}

export type RefusalListener = (refusal: GuardRefusal) => void;

/** What `localhost` and `*.localhost` stand for when the guard is on (the IPv4 loopback local services listen on). */
const LOCALHOST: ResolvedAddress = { address: '127.0.0.1', family: 4 };

export const systemResolver: Resolver = async (hostname) => {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
};

/**
 * SSRF guard: resolves a host once, refuses forbidden addresses, and hands out the vetted
 * addresses so the connection goes exactly there (no DNS-rebinding window between check and connect).
 */
export class AddressGuard {
  readonly allowPrivateNetworks: boolean;
  private readonly allowHosts: Set<string>;
  private readonly allowCidrs: Cidr[];
  private readonly resolver: Resolver;
  private readonly onRefusal?: RefusalListener;

  constructor(options: AddressGuardOptions = {}) {
    this.allowPrivateNetworks = options.allowPrivateNetworks ?? false;
    this.allowHosts = new Set((options.allowHosts ?? []).map(normaliseHost));
    this.allowCidrs = (options.allowCidrs ?? []).map((c) => parseCidr(c));
    this.resolver = options.resolver ?? systemResolver;
    this.onRefusal = options.onRefusal;
  }

  /** Resolves `hostname` and returns only vetted addresses; throws AppError(ssrf_blocked) otherwise. */
  async resolvePublic(hostname: string): Promise<ResolvedAddress[]> {
    const host = normaliseHost(hostname);
    // Metadata services stay closed whatever the configuration allows (docs/security.md).
    if (METADATA_HOST_NAMES.has(host))
      throw fetchError('ssrf_blocked', `The host ${host} is a cloud metadata service and is never allowed.`);
    const privileged = this.allowPrivateNetworks || this.allowHosts.has(host);
    const literal = isIP(host);
    if (literal) {
      this.assertPublicAddress(host, host, privileged);
      return [{ address: host, family: literal === 6 ? 6 : 4 }];
    }
    if (!privileged && (host === 'localhost' || host.endsWith('.localhost'))) {
      // Loopback by definition (RFC 6761), never asked of DNS: judged as 127.0.0.1, so the hint's range opens it.
      if (!classifyIp(LOCALHOST.address, this.allowCidrs).allowed)
        throw fetchError('ssrf_blocked', `The host ${host} is not allowed (loopback). ${openingHint(LOCALHOST.address)}`);
      return [LOCALHOST];
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolver(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EDNS';
      // NXDOMAIN will not heal on retry; SERVFAIL/timeouts may.
      const retryable = code !== 'ENOTFOUND';
      throw fetchError('fetch_error', `DNS lookup of ${host} failed (${code}).`, { retryable, cause: error });
    }
    if (addresses.length === 0) throw fetchError('fetch_error', `DNS lookup of ${host} returned no address.`);
    // One forbidden address taints the name: mixed answers are a classic rebinding trick.
    for (const a of addresses) this.assertPublicAddress(a.address, host, privileged);
    return addresses;
  }

  /**
   * Throws ssrf_blocked when `ip` is in a forbidden range (unless privileged/allowlisted). When `ip` is what a
   * name resolved to, the message names the host and the variable that would open it but not the address (an
   * internal name's address is not the caller's to learn); the address goes to `onRefusal` (the log).
   */
  assertPublicAddress(ip: string, hostForMessage = ip, privileged = this.allowPrivateNetworks): void {
    const metadata = metadataRange(ip);
    const verdict = metadata ? { allowed: false, reason: metadata } : privileged ? undefined : classifyIp(ip, this.allowCidrs);
    if (!verdict || verdict.allowed) return;
    if (hostForMessage === ip) {
      const message = metadata
        ? `The address ${ip} is never allowed: ${metadata}.`
        : `The address ${ip} is not allowed: ${verdict.reason}. ${openingHint(ip)}`;
      throw fetchError('ssrf_blocked', message);
    }
    this.onRefusal?.({ host: hostForMessage, address: ip, reason: verdict.reason });
    throw fetchError(
      'ssrf_blocked',
      metadata
        ? `The host ${hostForMessage} resolves to a cloud metadata address and is never allowed.`
        : `The host ${hostForMessage} resolves to an address the guard refuses. ${openingHint()}`,
    );
  }

  /**
   * This guard, refusing every host but `hosts` as well (an auth profile's browser login: docs/auth-profiles.md
   * "Browser logins"). Everything else is this guard's own judgement, so the address rules still hold.
   */
  confinedTo(hosts: readonly string[]): AddressGuard {
    const allowed = new Set(hosts.map(normaliseHost));
    const confined = Object.create(this) as AddressGuard;
    confined.resolvePublic = async (hostname: string) => {
      const host = normaliseHost(hostname);
      if (!allowed.has(host)) throw fetchError('ssrf_blocked', `The host ${host} is not one of the login's hosts.`);
      return this.resolvePublic(hostname);
    };
    return confined;
  }

  /** Checks an absolute URL (scheme and host) and returns its vetted addresses. */
  async checkUrl(url: string | URL): Promise<ResolvedAddress[]> {
    const parsed = typeof url === 'string' ? safeUrl(url) : url;
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw fetchError('ssrf_blocked', `The scheme ${parsed.protocol} is not allowed.`);
    }
    return this.resolvePublic(parsed.hostname);
  }

  /**
   * A Node `lookup` for sockets/agents: resolves through the guard and returns only vetted
   * addresses. Use it for webhooks and model endpoints (createGuardedAgent). Note that Node skips
   * `lookup` for IP-literal hosts, so callers must also run checkUrl() for those.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolvePublic(hostname).then(
      (addresses) => deliver(addresses, options, callback),
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

/** A lookup that answers with already-vetted addresses only (the connect goes where the check looked). */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => deliver(addresses, options, callback);
}

function deliver(
  addresses: readonly ResolvedAddress[],
  options: { all?: boolean; family?: number | string },
  callback: (...args: never[]) => void,
): void {
  const cb = callback as (err: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void;
  const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
  const usable = wanted ? addresses.filter((a) => a.family === wanted) : [...addresses];
  if (usable.length === 0) {
    const err = Object.assign(new Error('no vetted address of the requested family'), { code: 'ENOTFOUND' });
    cb(err, '', 4);
    return;
  }
  if (options.all) cb(null, usable);
  else cb(null, usable[0].address, usable[0].family);
}

/** http(s) agent whose every connection goes through the guard (webhooks, model endpoints). */
export function createGuardedAgent(
  guard: AddressGuard,
  protocol: 'http:' | 'https:' = 'https:',
  options: http.AgentOptions = {},
): http.Agent {
  const agentOptions = { keepAlive: true, ...options, lookup: guard.lookup };
  return protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
}

/** Convenience for one-off checks with default options. */
export async function resolvePublic(hostname: string, options: AddressGuardOptions = {}): Promise<ResolvedAddress[]> {
  return new AddressGuard(options).resolvePublic(hostname);
}

export function assertPublicAddress(ip: string): void {
  new AddressGuard().assertPublicAddress(ip);
}

export function normaliseHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

function safeUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw fetchError('invalid_request', `Not a valid URL: ${url}`);
  }
}

/**
 * What the operator sets to open a refused address on purpose (docs/security.md "Opening private networks"):
 * for a literal address its own /32 or /128, for a name only the variable (its address stays out of the message).
 */
function openingHint(ip?: string): string {
  const entry = ip === undefined ? ' (its address or range)' : `=${isIP(ip) === 6 ? `${ip}/128` : `${ip}/32`} (or its range)`;
  return `An operator can open it with GLEANER_ALLOW_NETWORKS${entry}, or GLEANER_ALLOW_PRIVATE_NETWORKS=true for development.`;
}
