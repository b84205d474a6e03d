import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { Duplex } from 'node:stream';
import * as tls from 'node:tls';
import type { ProxyEndpoint } from './proxy-pools-config';
import { openTunnel } from './proxy-tunnel';

type Oncreate = (error: Error | null, stream: Duplex) => void;
type ConnectOptions = http.ClientRequestArgs & tls.ConnectionOptions;

/**
 * Resolves the request's host through its own `lookup` (the static fetcher's pinned lookup: the addresses the guard
 * vetted), so the tunnel is asked for the vetted address, never the name.
 */
function vettedAddress(options: ConnectOptions): Promise<string> {
  const host = options.host ?? options.hostname ?? '';
  if (net.isIP(host)) return Promise.resolve(host);
  const lookup = options.lookup;
  if (!lookup) return Promise.reject(new Error('a proxied request needs the guard-vetted lookup'));
  return new Promise((resolve, reject) =>
    lookup(host, { family: 0 }, (error, address) => (error ? reject(error) : resolve(address as string))),
  );
}

function tunnel(proxy: ProxyEndpoint, options: ConnectOptions, timeoutMs: number): Promise<net.Socket> {
  return vettedAddress(options).then((address) => openTunnel(proxy, address, Number(options.port), timeoutMs));
}

/** An http.Agent whose connections are tunnels through one proxy (keep-alive sockets are reused per site). */
class TunnelHttpAgent extends http.Agent {
  constructor(
    private readonly proxy: ProxyEndpoint,
    private readonly timeoutMs: number,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, oncreate?: Oncreate): undefined {
    const done = oncreate ?? (() => {});
    tunnel(this.proxy, options, this.timeoutMs).then(
      (socket) => done(null, socket),
      (error: Error) => done(error, undefined as never),
    );
    return undefined;
  }
}

/** The same for https sites: TLS to the site inside the tunnel, with the site's name as SNI. */
class TunnelHttpsAgent extends https.Agent {
  constructor(
    private readonly proxy: ProxyEndpoint,
    private readonly timeoutMs: number,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: ConnectOptions, oncreate?: Oncreate): undefined {
    const done = oncreate ?? (() => {});
    const host = options.host ?? options.hostname ?? '';
    tunnel(this.proxy, options, this.timeoutMs).then(
      (socket) => {
        const secure = tls.connect({ ...options, socket, servername: options.servername || (net.isIP(host) ? undefined : host) });
        const onError = (error: Error) => done(error, undefined as never);
        secure.once('error', onError);
        secure.once('secureConnect', () => {
          secure.removeListener('error', onError);
          done(null, secure);
        });
      },
      (error: Error) => done(error, undefined as never),
    );
    return undefined;
  }
}

export interface TunnelAgents {
  http: http.Agent;
  https: https.Agent;
}

/** The agents of each proxy, made once per process and reused (their keep-alive sockets with them). */
export class ProxyAgents {
  private readonly agents = new Map<ProxyEndpoint, TunnelAgents>();

  constructor(
    private readonly connectTimeoutMs = 15_000,
    private readonly maxSocketsPerHost = 64,
  ) {}

  for(proxy: ProxyEndpoint): TunnelAgents {
    let agents = this.agents.get(proxy);
    if (!agents) {
      const options = { keepAlive: true, maxSockets: this.maxSocketsPerHost };
      agents = {
        http: new TunnelHttpAgent(proxy, this.connectTimeoutMs, options),
        https: new TunnelHttpsAgent(proxy, this.connectTimeoutMs, options),
      };
      this.agents.set(proxy, agents);
    }
    return agents;
  }

  close(): void {
    for (const { http: h, https: s } of this.agents.values()) {
      h.destroy();
      s.destroy();
    }
    this.agents.clear();
  }
}
