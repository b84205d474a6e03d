import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { pinnedLookup, type AddressGuard } from '@app/fetch';

/** The fetch signature the openai and anthropic SDKs accept as their `fetch` option. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchAgents {
  http: http.Agent;
  https: https.Agent;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A WHATWG fetch on node:http(s) whose connections go only to addresses the guard vetted: the URL is
 * checked (scheme, host, every resolved address) and the socket is pinned to those addresses, so a
 * user-supplied model endpoint cannot reach private networks, even by DNS rebinding. Redirects are
 * not followed (a model API has no business redirecting; following would need a new check).
 * Built on node:http rather than undici's dispatcher so no extra dependency is needed.
 */
export function createGuardedFetch(guard: AddressGuard, agents?: GuardedFetchAgents): FetchFunction {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const addresses = await guard.checkUrl(url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body) headers['content-length'] = String(body.length);
    signal?.throwIfAborted();

    const secure = url.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const outgoing = (secure ? https : http).request(
        url,
        {
          method: request.method,
          headers,
          lookup: pinnedLookup(addresses),
          agent: agents ? (secure ? agents.https : agents.http) : undefined,
          signal,
        },
        (incoming) => {
          const status = incoming.statusCode ?? 502;
          const responseHeaders = new Headers();
          for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
            responseHeaders.append(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
          if (NULL_BODY_STATUSES.has(status) || request.method === 'HEAD') {
            incoming.resume();
            resolve(new Response(null, { status, statusText: incoming.statusMessage, headers: responseHeaders }));
            return;
          }
          const stream = decode(incoming, responseHeaders);
          resolve(
            new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
              status,
              statusText: incoming.statusMessage,
              headers: responseHeaders,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}

/** Undoes Content-Encoding the way fetch does (the SDKs expect plain bodies). */
function decode(incoming: http.IncomingMessage, headers: Headers): Readable {
  const encoding = (headers.get('content-encoding') ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (!decoder) return incoming;
  headers.delete('content-encoding');
  headers.delete('content-length');
  incoming.on('error', (error) => decoder.destroy(error));
  return incoming.pipe(decoder);
}

export function createModelAgents(): GuardedFetchAgents {
  return { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
}
