/**
 * `npm run test:firecrawl-cluster` (after its build): runs firecrawl-cluster.dev-spec.ts (the Firecrawl SDK
 * and MCP suite against the cluster deployment) and records the outcome in bench-results/firecrawl-cluster.json,
 * which is committed (docs/firecrawl.md "Tests"): each test with its status and time, the SDK and MCP versions,
 * the commit, the machine's load. Exits with jest's status.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SPEC = 'test/e2e/firecrawl-cluster.dev-spec.ts';
const OUT = join(ROOT, 'bench-results', 'firecrawl-cluster.json');

interface JestJson {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; duration?: number | null }> }>;
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

function git(...args: string[]): string {
  return spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
}

const started = Date.now();
const loadBefore = loadavg()[0];
const json = join(mkdtempSync(join(tmpdir(), 'firecrawl-cluster-')), 'jest.json');
const run = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    'node_modules/jest/bin/jest.js',
    '--selectProjects',
    'dev',
    '--runInBand',
    '--json',
    `--outputFile=${json}`,
    SPEC,
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
const result = JSON.parse(readFileSync(json, 'utf8')) as JestJson;
const record = {
  about: `${SPEC}: Firecrawl's JS SDK and firecrawl-mcp against the cluster deployment (API + 2 crawlers, Redis, MongoDB-wire)`,
  ran_at: new Date(started).toISOString(),
  commit:
    git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--', 'apps', 'libs', 'test') ? ' (with uncommitted changes)' : ''),
  node: process.version,
  sdk: `@mendable/firecrawl-js ${version('@mendable/firecrawl-js')}`,
  mcp: `firecrawl-mcp ${version('firecrawl-mcp')}`,
  load_average: { before: Number(loadBefore.toFixed(1)), after: Number(loadavg()[0].toFixed(1)) },
  seconds: Math.round((Date.now() - started) / 1000),
  passed: result.numPassedTests,
  failed: result.numFailedTests,
  tests: result.testResults.flatMap((file) =>
    file.assertionResults.map((test) => ({ name: test.fullName, status: test.status, ms: test.duration ?? null })),
  ),
};
writeFileSync(OUT, `${JSON.stringify(record, null, 2)}\n`);
process.stdout.write(`\nfirecrawl cluster suite: ${record.passed} passed, ${record.failed} failed; written to ${OUT}\n`);
process.exitCode = run.status ?? 1;
