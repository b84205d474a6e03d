/** What the archive e2e suites share: reading a WARC file with an independent reader, fetching a page past the app. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const PYTHON = join(ROOT, '.venv-warcio', 'bin', 'python');

/** Python warcio's reading of a WARC file (test/fixtures/warc/verify_warc.py). */
export function readWithWarcio(file: Buffer): { records: any[]; gzip_members: number } {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-warc-'));
  const path = join(dir, 'file.warc.gz');
  writeFileSync(path, file);
  return JSON.parse(execFileSync(PYTHON, [join(ROOT, 'test', 'fixtures', 'warc', 'verify_warc.py'), path], { encoding: 'utf8' }));
}

/** A playground page fetched directly (its loopback name resolved by hand, as the app's GLEANER_RESOLVE does). */
export function fetchFromSite(url: string): Promise<{ body: Buffer; contentType: string | undefined }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpGet({ host: '127.0.0.1', port: target.port, path: target.pathname, headers: { host: target.host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => resolve({ body: Buffer.concat(chunks), contentType: response.headers['content-type'] }));
    });
    request.on('error', reject);
  });
}
