import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppLogger } from '@app/observability';
import type { BodyStream } from './result-exports';
import { sendBody } from './send-body';

/**
 * sendBody on a real HTTP server and client over loopback: one write with its length for small bodies, bounded
 * buffering for large ones (it waits for `drain`), a failure after the headers destroys the connection (a truncated
 * file must not look complete), and a client that goes away closes the producer (the store cursor).
 */
describe('sendBody', () => {
  let server: Server;
  let port: number;
  let handler: (response: ServerResponse) => Promise<void>;
  const errors: unknown[] = [];
  const logger = {
    error: (...args: unknown[]) => errors.push(args),
    warn: () => undefined,
    info: () => undefined,
    debug: () => undefined,
  } as unknown as AppLogger;

  beforeAll(async () => {
    server = createServer((_req, response) => void handler(response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (errors.length = 0));

  /** GETs the server; resolves with the response head, the bytes read and how the body ended. */
  function get(): Promise<{ response: IncomingMessage; body: string; ended: 'complete' | 'aborted' | 'error' }> {
    return new Promise((resolve, reject) => {
      // A connection of its own: Node's global agent keeps connections alive, and one the server's keep-alive timer
      // closes as the next test sends on it fails that test with "socket hang up" (seen on a busy machine).
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ response, body, ended: response.complete ? 'complete' : 'aborted' }));
        response.on('aborted', () => resolve({ response, body, ended: 'aborted' }));
        response.on('error', () => resolve({ response, body, ended: 'error' }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  const body = (chunks: BodyStream['chunks']): BodyStream => ({ contentType: 'application/json', filename: 'x.json', chunks });

  it('sends a body already in memory in one write, with its length and the body headers', async () => {
    handler = (response) => sendBody(response, body('{"a":"é"}'), { 'x-extra': '1' }, logger);
    const { response, body: text, ended } = await get();
    expect(ended).toBe('complete');
    expect(text).toBe('{"a":"é"}');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers['x-extra']).toBe('1');
  });

  it('sends a produced body within one write chunk with its length, not chunked', async () => {
    async function* chunks() {
      yield '[';
      yield '1,2';
      yield ']';
    }
    handler = (response) => sendBody(response, body(chunks()), {}, logger);
    const { response, body: text } = await get();
    expect(text).toBe('[1,2]');
    expect(response.headers['content-length']).toBe('5');
    expect(response.headers['transfer-encoding']).toBeUndefined();
  });

  it('streams a large body chunked, never buffering more than a write chunk and one produced chunk', async () => {
    const piece = 'x'.repeat(16 * 1024);
    const count = 512; // 8 MiB: far past any socket buffer
    let maxBuffered = 0;
    let producedAll = false;
    handler = async (response) => {
      async function* chunks() {
        for (let i = 0; i < count; i++) {
          maxBuffered = Math.max(maxBuffered, response.writableLength);
          yield piece;
        }
        producedAll = true;
      }
      await sendBody(response, body(chunks()), {}, logger);
    };
    const { response, body: text, ended } = await get();
    expect(ended).toBe('complete');
    expect(producedAll).toBe(true);
    expect(text.length).toBe(piece.length * count);
    expect(response.headers['transfer-encoding']).toBe('chunked');
    // Without waiting for drain the async producer never yields to I/O and the whole 8 MiB queues in memory.
    expect(maxBuffered).toBeLessThanOrEqual(64 * 1024 + piece.length);
    expect(errors).toEqual([]);
  });

  it('destroys the connection when the producer fails after the headers went out, and logs the failure', async () => {
    const piece = 'y'.repeat(70 * 1024); // past one write chunk: headers and a first write go out
    handler = async (response) => {
      async function* chunks() {
        yield piece;
        throw new Error('store cursor lost');
      }
      await sendBody(response, body(chunks()), {}, logger);
    };
    const { response, body: text, ended } = await get();
    expect(response.statusCode).toBe(200);
    expect(ended).not.toBe('complete');
    expect(text.length).toBeLessThanOrEqual(piece.length);
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as unknown[])[1])).toBe('results export failed mid-stream');
  });

  it('fails the request outright when the producer fails before anything was sent', async () => {
    handler = async (response) => {
      async function* chunks(): AsyncGenerator<string> {
        throw new Error('store unavailable');
      }
      await sendBody(response, body(chunks()), {}, logger);
    };
    await expect(get()).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(errors).toHaveLength(1);
  });

  it('stops producing and closes the producer when the client goes away mid-stream', async () => {
    const piece = 'z'.repeat(64 * 1024);
    let closed!: () => void;
    const producerClosed = new Promise<void>((resolve) => (closed = resolve));
    let produced = 0;
    handler = async (response) => {
      async function* chunks() {
        try {
          for (;;) {
            produced++;
            yield piece;
          }
        } finally {
          closed();
        }
      }
      await sendBody(response, body(chunks()), {}, logger);
    };
    await new Promise<void>((resolve, reject) => {
      // A connection of its own: Node's global agent keeps connections alive, and one the server's keep-alive timer
      // closes as the next test sends on it fails that test with "socket hang up" (seen on a busy machine).
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
        response.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
    await producerClosed;
    expect(produced).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
