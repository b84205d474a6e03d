import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { AppError } from '@app/core';
import { AddressGuard, pinnedLookup } from './address-guard';
import type { ProxyPool } from './proxy-pool/proxy-pool';
import type { ProxyEndpoint } from './proxy-pool/proxy-pools-config';
import { openTunnel, proxyFailureOf } from './proxy-pool/proxy-tunnel';

/** A session's hold on one proxy of the pool (ProxyPool.pick's key) for its hosts' connections. */
export interface ProxyAffinity {
  /** Lower-case host names. */
  hosts: readonly string[];
  key: string;
}

export const REFUSED_HEADER = 'x-gleaner-refused';

/**
 * A loopback forward proxy that Chromium is launched with. Every browser connection (documents,
 * sub-resources, redirects, WebSockets, CONNECT tunnels) is checked by the address guard and
 * connected to the vetted address, so the browser's own DNS never decides where it goes.
 * With a proxy pool (one GuardedProxy per pool, docs/proxies.md) the connection to the vetted address is a
 * tunnel through the pool's proxy, tried on the next proxy when one fails: the pool chained behind the guard.
 * With an `affinity` (a context that carries an auth profile's session) the connections to the session's hosts
 * go through the session's own proxy of the pool, as its static requests do.
 */
export class GuardedProxy {
  private server?: http.Server;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private readonly sockets = new Set<net.Socket>();
  refused = 0;

  constructor(
    private readonly guard: AddressGuard,
    private readonly connectTimeoutMs = 15_000,
    private readonly pool?: ProxyPool,
    private readonly affinity?: ProxyAffinity,
  ) {}

  async start(): Promise<string> {
    const server = http.createServer((req, res) => void this.onRequest(req, res));
    server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.onConnect(req, socket, head));
    server.on('connection', (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    let addresses;
    try {
      addresses = await this.guard.checkUrl(target);
    } catch (error) {
      this.refuse(res, error);
      return;
    }
    const headers = { ...req.headers };
    for (const h of ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']) delete headers[h];
    const port = Number(target.port || 80);
    let tunnel: net.Socket | undefined;
    if (this.pool) {
      try {
        tunnel = await this.throughPool(target.hostname, addresses[0].address, port);
      } catch {
        res.writeHead(502).end();
        return;
      }
    }
    const upstream = http.request(
      {
        host: target.hostname,
        port,
        path: target.pathname + target.search,
        method: req.method,
        headers,
        // A tunnel through the pool is the request's one socket (no agent: an agent would open its own connection).
        ...(tunnel ? { createConnection: () => tunnel } : { lookup: pinnedLookup(addresses), agent: this.agent }),
        timeout: this.connectTimeoutMs,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.rawHeaders);
        up.pipe(res);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timeout')));
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  private async onConnect(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const [, host, port] = match;
    let address: string;
    try {
      address = (await this.guard.resolvePublic(host))[0].address;
    } catch (error) {
      this.refused++;
      const reason = error instanceof AppError ? error.message : 'refused';
      client.end(`HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: ${reason.replace(/[\r\n]/g, ' ')}\r\n\r\n`);
      return;
    }
    if (this.pool) {
      let tunnel: net.Socket;
      try {
        tunnel = await this.throughPool(host, address, Number(port));
      } catch {
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        return;
      }
      this.splice(client, tunnel, head);
      return;
    }
    const upstream = net.connect({ host: address, port: Number(port), timeout: this.connectTimeoutMs });
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      this.splice(client, upstream, head);
    });
    upstream.on('timeout', () => upstream.destroy());
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  }

  private splice(client: net.Socket, upstream: net.Socket, head: Buffer): void {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  /** A tunnel to the vetted address through the pool: a proxy that fails rests and the next is tried. */
  private async throughPool(host: string, address: string, port: number): Promise<net.Socket> {
    const pool = this.pool!;
    const tried = new Set<ProxyEndpoint>();
    const key = this.affinity?.hosts.includes(host.toLowerCase()) ? this.affinity.key : undefined;
    for (;;) {
      const proxy = pool.pick(host, tried, key);
      if (!proxy) throw new Error(`every proxy of the pool ${pool.name} failed`);
      tried.add(proxy);
      try {
        const socket = await openTunnel(proxy, address, port, this.connectTimeoutMs);
        pool.succeeded(proxy);
        return socket;
      } catch (error) {
        const failure = proxyFailureOf(error);
        if (!failure) throw error;
        pool.failed(failure.proxy);
      }
    }
  }

  private refuse(res: http.ServerResponse, error: unknown): void {
    this.refused++;
    const reason = error instanceof AppError ? error.message : 'refused';
    res.writeHead(403, { 'content-type': 'text/plain', [REFUSED_HEADER]: reason.replace(/[\r\n]/g, ' ') });
    res.end(`Blocked by the Gleaner address guard: ${reason}`);
  }
}
