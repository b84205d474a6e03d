import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** How stored bodies are compressed: Brotli at quality 5 (HTML shrinks ~6–10×, at gzip -6's speed). */
export const ARCHIVE_ENCODING = 'br';

export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function encodeBody(data: Buffer): Promise<Buffer> {
  return compress(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
}

/** Decompresses a stored body, refusing more than `maxBytes` (a stored blob is trusted, but bounded all the same). */
export function decodeBody(stored: Buffer, maxBytes: number): Promise<Buffer> {
  return decompress(stored, { maxOutputLength: Math.max(1, maxBytes) });
}
