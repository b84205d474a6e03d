import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

export interface HttpResponse {
  status: number;
  /** Names lower-case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The payload: transfer and content encodings removed. */
  body: Buffer;
}

/**
 * Parses the HTTP response a WARC `response` record carries (status line, headers, body), removing
 * chunked transfer encoding and gzip/deflate/br content encoding within `maxBodyBytes` (a compressed
 * body is a bomb like any other). Returns the reason when it cannot.
 */
export function parseHttpResponse(block: Buffer, maxHeaderBytes: number, maxBodyBytes: number): HttpResponse | { error: string } {
  let split = block.indexOf('\r\n\r\n');
  let skip = 4;
  if (split < 0 || split > maxHeaderBytes) {
    split = block.indexOf('\n\n');
    skip = 2;
  }
  if (split < 0 || split > maxHeaderBytes) return { error: `no end of the HTTP header within ${maxHeaderBytes} bytes` };
  const lines = block.toString('latin1', 0, split).split(/\r?\n/);
  const statusMatch = /^HTTP\/\d(?:\.\d)?\s+(\d{3})(?:\s.*)?$/.exec(lines[0] ?? '');
  if (!statusMatch) return { error: `not an HTTP response: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}` };
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = block.subarray(split + skip);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const dechunked = dechunk(body, maxBodyBytes);
    if ('error' in dechunked) return dechunked;
    body = dechunked.body;
  }
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    try {
      const options = { maxOutputLength: maxBodyBytes };
      if (encoding === 'gzip' || encoding === 'x-gzip') body = gunzipSync(body, options);
      else if (encoding === 'br') body = brotliDecompressSync(body, options);
      else if (encoding === 'deflate') body = tryInflate(body, maxBodyBytes);
      else return { error: `unsupported Content-Encoding ${encoding}` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return { error: `the decoded body is larger than ${maxBodyBytes} bytes` };
      return { error: `the ${encoding} body cannot be decoded` };
    }
  }
  return { status: Number(statusMatch[1]), headers, body: Buffer.from(body) };
}

/** deflate is zlib-wrapped by the standard and raw in practice: both are read. */
function tryInflate(body: Buffer, max: number): Buffer {
  try {
    return inflateSync(body, { maxOutputLength: max });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    return inflateRawSync(body, { maxOutputLength: max });
  }
}

function dechunk(data: Buffer, max: number): { body: Buffer } | { error: string } {
  const parts: Buffer[] = [];
  let total = 0;
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0 || eol - at > 1024) return { error: 'a chunk size line of the chunked body is missing or too long' };
    const size = parseInt(data.toString('latin1', at, eol).split(';')[0].trim(), 16);
    if (!Number.isFinite(size) || size < 0) return { error: 'a chunk size of the chunked body is not a number' };
    at = eol + 2;
    if (size === 0) break;
    if (at + size > data.length) return { error: 'the chunked body ends inside a chunk' };
    total += size;
    if (total > max) return { error: `the decoded body is larger than ${max} bytes` };
    parts.push(data.subarray(at, at + size));
    at += size + 2;
  }
  return { body: Buffer.concat(parts, total) };
}
