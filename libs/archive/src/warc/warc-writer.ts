import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { WARCRecord, WARCSerializer } from 'warcio';
import type { ArchivedPageRecord } from '../archive.types';

/** One archived page to write, with the Gleaner result it led to (if any). */
export interface WarcPage {
  record: ArchivedPageRecord;
  body: Buffer;
  rendered: Buffer | null;
  result: { id: string; status: string; url: string } | null;
}

export interface WarcInfo {
  jobId: string;
  jobType: string;
  software: string;
  filename: string;
}

/** Headers the payload no longer has (the archive keeps bodies decoded): kept under another name. */
const ENCODING_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);
const DIGEST = { algo: 'sha-256', prefix: 'sha256:', base32: false } as const;
const OPTIONS = { gzip: true, digest: DIGEST };

/**
 * Writes a job's archive as WARC/1.1 (docs/archive.md "WARC out") with warcio, one gzip member per
 * record: a `warcinfo` record, then per page its `request` and `response` records (concurrent to
 * each other), a `conversion` record with the rendered HTML of a browser fetch, and a `metadata`
 * record that ties the page to its Gleaner result. Each record carries its block and payload digests
 * (SHA-256). Yields one serialized record at a time, so a job of any size streams.
 */
export async function* writeWarc(info: WarcInfo, pages: AsyncIterable<WarcPage>): AsyncGenerator<Uint8Array> {
  yield WARCSerializer.serialize(
    WARCRecord.createWARCInfo(
      { filename: info.filename, warcVersion: 'WARC/1.1' },
      {
        software: info.software,
        format: 'WARC File Format 1.1',
        conformsTo: 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
        'gleaner-job-id': info.jobId,
        'gleaner-job-type': info.jobType,
      },
    ),
    OPTIONS,
  );
  for await (const page of pages) {
    if (page.record.failure) continue;
    for (const record of pageRecords(page)) yield await WARCSerializer.serialize(record, OPTIONS);
  }
}

function pageRecords(page: WarcPage): WARCRecord[] {
  const { record } = page;
  const url = record.final_url;
  const date = warcDate(record.fetched_at);
  const responseId = `<urn:uuid:${randomUUID()}>`;
  const target = new URL(url);
  const request = WARCRecord.create(
    {
      url,
      date,
      type: 'request',
      warcVersion: 'WARC/1.1',
      statusline: `GET ${target.pathname}${target.search} HTTP/1.1`,
      httpHeaders: [['Host', target.host]],
      warcHeaders: { 'WARC-Concurrent-To': responseId },
    },
    [],
  );
  const response = WARCRecord.create(
    {
      url,
      date,
      type: 'response',
      warcVersion: 'WARC/1.1',
      statusline: `HTTP/1.1 ${record.status} ${STATUS_CODES[record.status] ?? ''}`.trimEnd(),
      httpHeaders: responseHeaders(record, page.body.length),
      warcHeaders: { 'WARC-Record-ID': responseId, 'WARC-Concurrent-To': request.warcHeaders.headers.get('WARC-Record-ID')! },
    },
    [page.body],
  );
  const records = [request, response];
  if (page.rendered) {
    records.push(
      WARCRecord.create(
        {
          url,
          date,
          type: 'conversion',
          warcVersion: 'WARC/1.1',
          warcHeaders: { 'WARC-Refers-To': responseId, 'Content-Type': 'text/html; charset=utf-8' },
        },
        [page.rendered],
      ),
    );
  }
  const metadata = {
    gleaner_job_id: record.job_id,
    result_id: page.result?.id ?? null,
    result_status: page.result?.status ?? null,
    requested_url: record.url,
    final_url: record.final_url,
    redirects: record.redirects,
    fetch_mode: record.fetch_mode,
    fetched_at: record.fetched_at,
    origin: record.origin,
    body_sha256: record.body_sha256,
  };
  records.push(
    WARCRecord.create(
      {
        url,
        date,
        type: 'metadata',
        warcVersion: 'WARC/1.1',
        warcHeaders: { 'WARC-Refers-To': responseId, 'Content-Type': 'application/json' },
      },
      [Buffer.from(JSON.stringify(metadata))],
    ),
  );
  return records;
}

/** The stored headers, less those that described an encoding the stored body no longer has (kept as X-Gleaner-Orig-*). */
function responseHeaders(record: ArchivedPageRecord, length: number): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(record.headers)) {
    const clean = String(value).replace(/[\r\n]+/g, ' ');
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) continue;
    out.push([ENCODING_HEADERS.has(name.toLowerCase()) ? `X-Gleaner-Orig-${name}` : name, clean]);
  }
  out.push(['Content-Length', String(length)]);
  return out;
}

/** WARC-Date: UTC, second precision or finer (WARC 1.1 allows fractions). */
function warcDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? new Date().toISOString() : date.toISOString();
}
