import * as net from 'node:net';
import * as tls from 'node:tls';
import type { ProxyEndpoint } from './proxy-pools-config';

/**
 * The proxy itself failed: it could not be reached, refused the tunnel or did not answer in time. The pool rests
 * it and the fetch tries another. The message names the proxy by its label only (no credentials).
 */
export class ProxyTunnelError extends Error {
  constructor(
    readonly proxy: ProxyEndpoint,
    reason: string,
  ) {
    super(`The proxy ${proxy.label} failed: ${reason}.`);
    this.name = 'ProxyTunnelError';
  }
}

/** The ProxyTunnelError under an error as got or Node wrap it, if any. */
export function proxyFailureOf(error: unknown): ProxyTunnelError | undefined {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) if (e instanceof ProxyTunnelError) return e;
  return undefined;
}

/**
 * Opens a tunnel through `proxy` to `address:port`, an address the guard vetted (never a name: the proxy's own DNS
 * must not decide where the connection goes). HTTP(S) proxies get a CONNECT, SOCKS5 proxies a CONNECT command with
 * the address; credentials go as Proxy-Authorization (Basic) or SOCKS5 username/password. The socket returned
 * carries the site's bytes; TLS to the site (with the name as SNI) is the caller's.
 */
export function openTunnel(proxy: ProxyEndpoint, address: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise<net.Socket>((resolve, reject) => {
    const socket =
      proxy.protocol === 'https:'
        ? tls.connect({ host: proxy.host, port: proxy.port, ...(net.isIP(proxy.host) ? {} : { servername: proxy.host }) })
        : net.connect({ host: proxy.host, port: proxy.port });
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(new ProxyTunnelError(proxy, reason));
    };
    socket.setTimeout(timeoutMs, () => fail('no answer in time'));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'connection error'));
    socket.once('close', () => fail('closed the connection'));
    const done = (rest: Buffer) => {
      if (settled) return;
      settled = true;
      socket.removeAllListeners('error');
      socket.removeAllListeners('close');
      socket.removeAllListeners('data');
      socket.setTimeout(0);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    const ready = proxy.protocol === 'https:' ? 'secureConnect' : 'connect';
    socket.once(ready, () => {
      if (proxy.protocol === 'socks5:') socks5(socket, proxy, address, port, done, fail);
      else httpConnect(socket, proxy, address, port, done, fail);
    });
  });
}

function httpConnect(
  socket: net.Socket,
  proxy: ProxyEndpoint,
  address: string,
  port: number,
  done: (rest: Buffer) => void,
  fail: (reason: string) => void,
): void {
  const authority = net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
  const auth =
    proxy.username !== undefined
      ? `Proxy-Authorization: Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}\r\n`
      : '';
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  let head = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > 16_384) fail('an answer to CONNECT too long');
      return;
    }
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1];
    if (status === undefined) fail('not an HTTP answer to CONNECT');
    else if (!status.startsWith('2')) fail(`answered CONNECT with ${status}`);
    else done(head.subarray(end + 4));
  });
}

/** SOCKS5 (RFC 1928) with username/password (RFC 1929) when the proxy URL has credentials. */
function socks5(
  socket: net.Socket,
  proxy: ProxyEndpoint,
  address: string,
  port: number,
  done: (rest: Buffer) => void,
  fail: (reason: string) => void,
): void {
  const withAuth = proxy.username !== undefined;
  let stage: 'method' | 'auth' | 'connect' = 'method';
  let buffer = Buffer.alloc(0);
  const connect = () => {
    stage = 'connect';
    const family = net.isIP(address);
    const host = family === 4 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const portBytes = Buffer.from([port >> 8, port & 0xff]);
    socket.write(Buffer.concat([Buffer.from([5, 1, 0, family === 4 ? 1 : 4]), host, portBytes]));
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (stage === 'method') {
      if (buffer.length < 2) return;
      const method = buffer[1];
      buffer = buffer.subarray(2);
      if (method === 2 && withAuth) {
        stage = 'auth';
        const user = Buffer.from(proxy.username ?? '');
        const pass = Buffer.from(proxy.password ?? '');
        socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
      } else if (method === 0) connect();
      else return fail(method === 0xff ? 'accepts none of our SOCKS5 methods' : `chose SOCKS5 method ${method}`);
    }
    if (stage === 'auth') {
      if (buffer.length < 2) return;
      if (buffer[1] !== 0) return fail('refused the SOCKS5 credentials');
      buffer = buffer.subarray(2);
      connect();
    }
    if (stage === 'connect') {
      if (buffer.length < 5) return;
      if (buffer[1] !== 0) return fail(`answered SOCKS5 CONNECT with ${buffer[1]}`);
      const length = buffer[3] === 1 ? 10 : buffer[3] === 4 ? 22 : 7 + buffer[4];
      if (buffer.length < length) return;
      done(buffer.subarray(length));
    }
  });
  socket.write(Buffer.from(withAuth ? [5, 2, 0, 2] : [5, 1, 0]));
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const parts = (s: string) => (s === '' ? [] : s.split(':'));
  const left = parts(head);
  const right = parts(tail);
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
