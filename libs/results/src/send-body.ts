import type { ServerResponse } from 'node:http';
import type { AppLogger } from '@app/observability';
import { bodyHeaders, type BodyStream } from './result-exports';

/** Bytes gathered before one socket write (fewer, larger writes; still bounded). */
const WRITE_CHUNK_BYTES = 64 * 1024;

/**
 * Writes a body to a raw response with backpressure (waits for `drain` when the socket buffer is
 * full), so memory stays bounded by one store batch plus one write chunk. A failure after the
 * headers went out destroys the connection: a truncated file must not look complete.
 */
export async function sendBody(
  response: ServerResponse,
  body: BodyStream,
  headers: Record<string, string>,
  logger: AppLogger,
): Promise<void> {
  const head = { ...headers, ...bodyHeaders(body) };
  if (typeof body.chunks === 'string') {
    if (!response.destroyed) response.writeHead(200, { ...head, 'content-length': Buffer.byteLength(body.chunks) }).end(body.chunks);
    return;
  }
  let buffer = '';
  const flush = async () => {
    if (!response.headersSent) response.writeHead(200, head);
    if (!buffer) return;
    const ok = response.write(buffer);
    buffer = '';
    if (!ok) await drained(response);
  };
  try {
    for await (const chunk of body.chunks) {
      if (response.destroyed) return; // client went away: leaving the loop closes the store cursor
      buffer += chunk;
      if (buffer.length >= WRITE_CHUNK_BYTES) await flush();
    }
    if (response.destroyed) return;
    if (response.headersSent) {
      await flush();
      response.end();
    } else {
      // A body within one write chunk (most jobs): headers and body in one write, with its length, not chunked.
      response.writeHead(200, { ...head, 'content-length': Buffer.byteLength(buffer) });
      response.end(buffer);
    }
  } catch (error) {
    logger.error({ err: error }, 'results export failed mid-stream');
    response.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
