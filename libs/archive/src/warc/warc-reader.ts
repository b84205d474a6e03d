import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ByteSource, ExpandedTooFar, TruncatedInput } from './byte-source';

export interface WarcLimits {
  /** A WARC header block (and an HTTP header block inside a record) larger than this is malformed. */
  maxHeaderBytes: number;
  /** A record whose content is larger than this is refused (content_too_large); the file goes on. */
  maxRecordBytes: number;
  /** The whole file, once decompressed: past this the reading stops (a gzip bomb, or simply too much). */
  maxExpandedBytes: number;
}

/** A record read whole. Header names are lower-case. */
export interface WarcRecord {
  kind: 'record';
  /** 0-based position in the file (every record counted, also those that could not be read). */
  index: number;
  /** Byte offset of the record in the decompressed stream. */
  offset: number;
  warcType: string;
  headers: Record<string, string>;
  content: Buffer;
}

/** A record that could not be read; the reader goes on at the next record it can find. */
export interface WarcProblem {
  kind: 'problem';
  index: number;
  offset: number;
  targetUri: string | null;
  category: 'invalid_request' | 'content_too_large';
  reason: string;
}

/** Reading stopped here (corrupt or truncated compression, the expansion cap); what came before counts. */
export interface WarcFatal {
  kind: 'fatal';
  index: number;
  offset: number;
  reason: string;
}

export type WarcItem = WarcRecord | WarcProblem | WarcFatal;

const VERSION_LINE = /^WARC\/1\.[01]$/;

/** Whether the first bytes look like gzip (a `.warc.gz`, one member per record or one for the file). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * Reads a WARC file (ISO 28500, 1.0 or 1.1; plain or gzip, any number of members) record by record,
 * holding at most one record in memory. Hostile input is bounded: header blocks by
 * `maxHeaderBytes`, records by `maxRecordBytes` (a larger one is skipped as it streams), the whole
 * decompressed stream by `maxExpandedBytes`. A record that does not parse is a `problem`, and reading
 * resumes at the next `WARC/1.x` line; a broken compression stream ends the reading with a `fatal`.
 * (warcio, which writes Gleaner's WARC files, has no such limits for reading, hence this reader.)
 */
export async function* readWarc(source: AsyncIterable<Buffer>, limits: WarcLimits): AsyncGenerator<WarcItem> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const rest: AsyncIterable<Buffer> = {
    async *[Symbol.asyncIterator]() {
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
  const input = isGzip(first.value) ? gunzip(rest) : rest;
  const bytes = new ByteSource(input, limits.maxExpandedBytes);
  let index = 0;
  let versionLine: string | null = null;
  try {
    for (;;) {
      const offset = bytes.offset;
      const line = versionLine ?? (await nextNonBlankLine(bytes, limits.maxHeaderBytes));
      versionLine = null;
      if (line === undefined) return;
      if (line === null || !VERSION_LINE.test(line.trim())) {
        yield problem(index++, offset, null, 'invalid_request', 'not a WARC record here: expected a "WARC/1.0" or "WARC/1.1" line');
        versionLine = await resync(bytes, limits.maxHeaderBytes);
        continue;
      }
      const head = await readHeaders(bytes, limits.maxHeaderBytes);
      if (head.error !== null) {
        yield problem(index++, offset, head.headers['warc-target-uri'] ?? null, 'invalid_request', head.error);
        if (head.atEnd) return;
        versionLine = await resync(bytes, limits.maxHeaderBytes);
        continue;
      }
      const headers = head.headers;
      const target = cleanUri(headers['warc-target-uri']);
      const declared = headers['content-length'];
      const length = declared !== undefined && /^\d{1,15}$/.test(declared.trim()) ? Number(declared.trim()) : null;
      if (length === null) {
        yield problem(index++, offset, target, 'invalid_request', 'the record has no valid Content-Length');
        versionLine = await resync(bytes, limits.maxHeaderBytes);
        continue;
      }
      if (length > limits.maxRecordBytes) {
        await bytes.skip(length);
        yield problem(
          index++,
          offset,
          target,
          'content_too_large',
          `the record's content (${length} bytes) is larger than ${limits.maxRecordBytes} bytes`,
        );
        versionLine = await endOfRecord(bytes, limits.maxHeaderBytes);
        continue;
      }
      const content = await bytes.read(length);
      if (!(await recordEnds(bytes))) {
        // What follows the content is not the record's end: its Content-Length is wrong, so is its content.
        // A too long one swallowed the start of the next record: reading resumes there.
        const next = nextRecordStart(Buffer.concat([content, await bytes.peek(16)]));
        if (next >= 0 && next < content.length) bytes.unread(content.subarray(next));
        yield problem(index++, offset, target, 'invalid_request', "the record's Content-Length does not match its content");
        versionLine = await resync(bytes, limits.maxHeaderBytes);
        continue;
      }
      yield { kind: 'record', index: index++, offset, warcType: (headers['warc-type'] ?? '').toLowerCase(), headers, content };
    }
  } catch (error) {
    if (error instanceof TruncatedInput) {
      yield problem(index, bytes.offset, null, 'invalid_request', `the file ends in the middle of a record (${error.message})`);
      return;
    }
    if (error instanceof ExpandedTooFar) {
      yield { kind: 'fatal', index, offset: bytes.offset, reason: error.message };
      return;
    }
    yield {
      kind: 'fatal',
      index,
      offset: bytes.offset,
      reason: `the compressed data is corrupt or truncated (${(error as Error).message})`,
    };
  }
}

function problem(index: number, offset: number, target: string | null, category: WarcProblem['category'], reason: string): WarcProblem {
  return { kind: 'problem', index, offset, targetUri: cleanUri(target ?? undefined), category, reason };
}

/** WARC 1.0 files often write the target URI in angle brackets. */
function cleanUri(raw: string | undefined): string | null {
  if (!raw) return null;
  const trimmed = raw.trim();
  return trimmed.startsWith('<') && trimmed.endsWith('>') ? trimmed.slice(1, -1) : trimmed;
}

async function nextNonBlankLine(bytes: ByteSource, max: number): Promise<string | null | undefined> {
  for (;;) {
    const line = await bytes.readLine(max);
    if (line === '') continue;
    return line;
  }
}

/** Reads lines until a `WARC/1.x` line (returned) or the end (null). Overlong lines are passed over. */
async function resync(bytes: ByteSource, max: number): Promise<string | null> {
  for (;;) {
    const line = await bytes.readLine(max);
    if (line === undefined) return null;
    if (line !== null && VERSION_LINE.test(line.trim())) return line;
  }
}

/** Consumes the two CRLFs after a record's content; false (nothing consumed) when something else follows. */
async function recordEnds(bytes: ByteSource): Promise<boolean> {
  const tail = await bytes.peek(4);
  if (tail.equals(CRLF2)) {
    await bytes.skip(4);
    return true;
  }
  // The last record of a file missing its terminator (or part of it) is still whole.
  if (tail.length < 4 && /^[\r\n]*$/.test(tail.toString('latin1')) && (await bytes.peek(5)).length === tail.length) {
    await bytes.skip(tail.length);
    return true;
  }
  return false;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const RECORD_START = /(?:^|\n)WARC\/1\.[01]\r?\n/;

/** Where the next record starts inside `data` (its `WARC/1.x` line, the first after a line end), or -1. */
function nextRecordStart(data: Buffer): number {
  const match = RECORD_START.exec(data.toString('latin1', 1));
  if (!match) return -1;
  return 1 + match.index + (match[0].startsWith('\n') ? 1 : 0);
}

/**
 * After a record's content come two CRLFs. Null when they do; otherwise the line found instead
 * (`''` when it cannot be used, a version line when the next record starts right away).
 */
async function endOfRecord(bytes: ByteSource, max: number): Promise<string | null> {
  for (let i = 0; i < 2; i++) {
    const line = await bytes.readLine(max);
    if (line === undefined) return i === 0 ? '' : null;
    if (line === '') continue;
    return line !== null && VERSION_LINE.test(line.trim()) ? line : '';
  }
  return null;
}

interface HeaderBlock {
  headers: Record<string, string>;
  error: string | null;
  atEnd: boolean;
}

/** `Name: value` lines up to a blank line, continuation lines folded in, the block bounded by `max` bytes. */
async function readHeaders(bytes: ByteSource, max: number): Promise<HeaderBlock> {
  const headers: Record<string, string> = {};
  let size = 0;
  let last: string | null = null;
  for (;;) {
    const line = await bytes.readLine(max);
    if (line === undefined) return { headers, error: 'the file ends inside a record header', atEnd: true };
    if (line === null || (size += line.length + 2) > max)
      return { headers, error: `the record header is larger than ${max} bytes`, atEnd: false };
    if (line === '') return { headers, error: null, atEnd: false };
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0)
      return { headers, error: `a record header line is not "Name: value": ${JSON.stringify(line.slice(0, 80))}`, atEnd: false };
    last = line.slice(0, colon).trim().toLowerCase();
    headers[last] = line.slice(colon + 1).trim();
  }
}

function gunzip(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  // The decompressor's output is pulled as the reader asks, so a bomb never expands beyond one chunk ahead.
  return pipeline(source, createGunzip({ chunkSize: 64 * 1024 }), () => undefined);
}
