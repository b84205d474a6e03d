/**
 * npm run bench:scrape — markdown of the articles corpus (GLEANER_CORPUS_DIR, see corpus-dir.ts) two
 * ways in the same run, on the same pages served from loopback:
 * - POST /api/v1/scrape (formats ["markdown"], static fetch, main content) on the built embedded
 *   service, BENCH_SCRAPE_CONNECTIONS (8) clients at once: pages per second end to end (request, job,
 *   queue, fetch, conversion, result stored, answer);
 * - `gleaner convert --mode main --jsonl` (the built CLI, the same converter with nothing around it) on
 *   the same pages: pages per second, the process start measured apart and left out.
 * And the markdown's tokens (cl100k_base) against the raw HTML's, per page and over the corpus.
 * Numbers to bench-results/scrape.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getEncoding } from 'js-tiktoken';
import { freePort } from '../harness/servers';
import { loadArticles, type ArticleCase } from './content-corpus';

const ROOT = join(__dirname, '..', '..');
const API = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const KEY = 'glk_' + 'S'.repeat(20) + 's'.repeat(20);
const PASSES = Number(process.env.BENCH_SCRAPE_PASSES ?? 3);
const CONNECTIONS = Number(process.env.BENCH_SCRAPE_CONNECTIONS ?? 8);
const THREADS = 2;

function serveArticles(articles: ArticleCase[]): Promise<{ url: (id: string) => string; close: () => Promise<void> }> {
  const byId = new Map(articles.map((a) => [a.id, Buffer.from(a.html, 'utf8')]));
  const server = http.createServer((req, res) => {
    const body = byId.get((req.url ?? '').replace(/^\/a\//, ''));
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: (id) => `http://127.0.0.1:${port}/a/${id}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    }),
  );
}

async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not start`);
}

async function scrapeAll(api: string, urls: string[]): Promise<{ seconds: number; markdown: Map<string, string>; failures: number }> {
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const markdown = new Map<string, string>();
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < urls.length) {
        const url = urls[next++];
        const res = await fetch(`${api}/api/v1/scrape`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url, formats: ['markdown'], fetch_mode: 'static', only_main_content: true }),
        });
        const body = (await res.json()) as { data?: { markdown?: string } };
        if (res.status !== 200 || typeof body.data?.markdown !== 'string') failures++;
        else markdown.set(url, body.data.markdown);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, markdown, failures };
}

/** Runs `gleaner convert` on JSON lines; resolves to the wall time and the output lines. */
function convert(lines: string[]): Promise<{ seconds: number; out: string[] }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'convert', '--mode', 'main', '--jsonl', '--threads', String(THREADS)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`gleaner convert exited ${code}`));
      const out = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
      resolve({ seconds: (performance.now() - started) / 1000, out });
    });
    child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  if (!existsSync(API) || !existsSync(CLI)) throw new Error('run `npm run build` first');
  const articles = loadArticles();
  const site = await serveArticles(articles);
  const urls = Array.from({ length: PASSES }, () => articles.map((a) => site.url(a.id))).flat();
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [API], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-bench-scrape-')),
        GLEANER_BOOTSTRAP_KEY: KEY,
        GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
        GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
        GLEANER_BROWSER_ENABLED: 'false',
        GLEANER_CONTENT_THREADS: String(THREADS),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitHealthy(api);
    await scrapeAll(
      api,
      articles.slice(0, Math.min(articles.length, 20)).map((a) => site.url(a.id)),
    ); // warm-up
    const scraped = await scrapeAll(api, urls);

    const lines = Array.from({ length: PASSES }, () =>
      articles.map((a) => JSON.stringify({ id: a.id, url: site.url(a.id), html: a.html })),
    ).flat();
    const startup = await convert([]);
    const converted = await convert(lines);
    const convertSeconds = Math.max(0.001, converted.seconds - startup.seconds);

    const enc = getEncoding('cl100k_base');
    const perPage = articles.map((a) => {
      const md = scraped.markdown.get(site.url(a.id)) ?? '';
      const raw = enc.encode(a.html, 'all').length;
      const tokens = enc.encode(md, 'all').length;
      return { id: a.id, raw_html_tokens: raw, markdown_tokens: tokens, ratio: tokens / Math.max(1, raw) };
    });
    const rawTotal = perPage.reduce((n, p) => n + p.raw_html_tokens, 0);
    const mdTotal = perPage.reduce((n, p) => n + p.markdown_tokens, 0);
    // The same converter both ways: the scrape's markdown equals convert's for the same page.
    const convertText = new Map(
      converted.out.map((l) => JSON.parse(l) as { id: string; text?: string }).map((r) => [r.id, r.text ?? ''] as const),
    );
    const identical = articles.filter((a) => convertText.get(a.id) === scraped.markdown.get(site.url(a.id))).length;

    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model },
      corpus: { pages: articles.length, passes: PASSES, requests: urls.length },
      scrape: {
        connections: CONNECTIONS,
        content_threads: THREADS,
        pages_per_s: Number((urls.length / scraped.seconds).toFixed(1)),
        seconds: Number(scraped.seconds.toFixed(2)),
        failures: scraped.failures,
      },
      convert: {
        threads: THREADS,
        pages_per_s: Number((lines.length / convertSeconds).toFixed(1)),
        seconds: Number(convertSeconds.toFixed(2)),
        process_start_s: Number(startup.seconds.toFixed(2)),
      },
      scrape_vs_convert: Number((urls.length / scraped.seconds / (lines.length / convertSeconds)).toFixed(2)),
      same_markdown_as_convert: `${identical}/${articles.length}`,
      tokens: {
        encoding: 'cl100k_base',
        raw_html: rawTotal,
        markdown: mdTotal,
        markdown_share: Number((mdTotal / rawTotal).toFixed(4)),
        median_page_share: Number(median(perPage.map((p) => p.ratio)).toFixed(4)),
      },
    };
    console.log(JSON.stringify(result, null, 2));
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench-results', 'scrape.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    child?.kill('SIGTERM');
    await site.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
