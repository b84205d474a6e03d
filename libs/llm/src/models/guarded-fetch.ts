import * as http from 'node:http';
import * as https from 'node:https';
import type { Readable } from 'node:stream';
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
    const { url, method, headers, body } = await outgoingRequest(input, init);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const addresses = await guard.checkUrl(url);
    if (body) headers['content-length'] = String(body.length);
    signal?.throwIfAborted();

    const secure = url.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const outgoing = (secure ? https : http).request(
        url,
        {
          method,
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
          if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
            incoming.resume();
            resolve(new Response(null, { status, statusText: incoming.statusMessage, headers: responseHeaders }));
            return;
          }
          const stream = decode(incoming, responseHeaders);
          // The SDKs read a whole JSON answer (no streamed completions are asked for): handing it over as one
          // buffer spares a web stream per call, a fair part of a call's cost to a local model.
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          let ended = false;
          stream.on('error', reject);
          stream.on('end', () => {
            ended = true;
            resolve(new Response(Buffer.concat(chunks), { status, statusText: incoming.statusMessage, headers: responseHeaders }));
          });
          stream.on('close', () => {
            if (!ended)
              reject(signal?.aborted ? signal.reason : new Error('The model endpoint closed the connection before its answer ended.'));
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}

/**
 * The method, headers and body of a fetch call. The SDKs pass a URL string and a string body: read
 * directly, without building a WHATWG Request (and its body stream) to take them apart again.
 */
async function outgoingRequest(
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<{ url: URL; method: string; headers: Record<string, string>; body: Buffer | undefined }> {
  const headers: Record<string, string> = {};
  const plainBody = init?.body === undefined || init.body === null || typeof init.body === 'string' || init.body instanceof Uint8Array;
  if (!(input instanceof Request) && plainBody) {
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const raw = init?.body;
    const body =
      raw === undefined || raw === null ? undefined : typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw as Uint8Array);
    if (body && headers['content-type'] === undefined && typeof raw === 'string') headers['content-type'] = 'text/plain;charset=UTF-8';
    return { url: new URL(input), method: (init?.method ?? 'GET').toUpperCase(), headers, body };
  }
  const request = new Request(input, init);
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    url: new URL(request.url),
    method: request.method,
    headers,
    body: request.body ? Buffer.from(await request.arrayBuffer()) : undefined,
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
