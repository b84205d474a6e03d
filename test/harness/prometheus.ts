/**
 * A real Prometheus for tests: Debian's `prometheus` binary (installed by
 * test/harness/install-system-deps.sh), started on a free 127.0.0.1 port with a temporary data dir and
 * a generated config; never the system service. Also runs `promtool`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, which } from './servers';

export interface ScrapeJob {
  job: string;
  /** host:port of every target */
  targets: string[];
}

export interface PromTarget {
  labels: Record<string, string>;
  health: 'up' | 'down' | 'unknown';
  lastScrape: string;
  lastError: string;
}

export interface PromRule {
  name: string;
  query: string;
  health: string;
  lastError?: string;
  lastEvaluation: string;
  state?: string;
  type: 'alerting' | 'recording';
}

export interface PromSeries {
  metric: Record<string, string>;
  value?: [number, string];
  values?: Array<[number, string]>;
}

export interface Prometheus {
  url: string;
  dir: string;
  output(): string;
  /** Instant query at `time` (seconds); throws with Prometheus's error for a bad query. */
  query(expr: string, time?: number): Promise<PromSeries[]>;
  queryRange(expr: string, start: number, end: number, step: number): Promise<PromSeries[]>;
  /** label values of `label` on series matching `match` (what Grafana's label_values() asks). */
  labelValues(label: string, match: string): Promise<string[]>;
  targets(): Promise<PromTarget[]>;
  rules(): Promise<PromRule[]>;
  alerts(): Promise<Array<{ labels: Record<string, string>; state: string }>>;
  stop(): Promise<void>;
}

export function promtool(args: string[]): { status: number | null; output: string } {
  const binary = which('promtool');
  if (!binary) throw new Error('promtool not found (apt-get install -y prometheus; npm test installs it)');
  const result = spawnSync(binary, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The scrape config the tests use: every job scraped each `scrapeInterval`, rules evaluated as often. */
export function prometheusConfig(jobs: ScrapeJob[], ruleFiles: string[], scrapeInterval = '1s'): string {
  const lines = [
    'global:',
    `  scrape_interval: ${scrapeInterval}`,
    `  evaluation_interval: ${scrapeInterval}`,
    `  scrape_timeout: ${scrapeInterval}`,
    'rule_files:',
    ...ruleFiles.map((f) => `  - ${JSON.stringify(f)}`),
    'scrape_configs:',
  ];
  for (const job of jobs) {
    lines.push(`  - job_name: ${JSON.stringify(job.job)}`, '    metrics_path: /metrics', '    static_configs:');
    lines.push(`      - targets: [${job.targets.map((t) => JSON.stringify(t)).join(', ')}]`);
  }
  return lines.join('\n') + '\n';
}

export async function startPrometheus(config: string): Promise<Prometheus> {
  const binary = which('prometheus');
  if (!binary) throw new Error('prometheus not found (apt-get install -y prometheus; npm test installs it)');
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-prometheus-'));
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const chunks: string[] = [];
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const output = () => chunks.join('');

  async function api<T>(path: string, params: Record<string, string | string[]>): Promise<T> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const res = await fetch(`${url}${path}`, { method: 'POST', body });
    const json = (await res.json()) as { status: string; data: T; error?: string; errorType?: string };
    if (json.status !== 'success') throw new Error(`Prometheus ${path}: ${json.errorType}: ${json.error}`);
    return json.data;
  }
  async function get<T>(path: string): Promise<T> {
    const res = await fetch(`${url}${path}`);
    const json = (await res.json()) as { status: string; data: T; error?: string };
    if (json.status !== 'success') throw new Error(`Prometheus ${path}: ${json.error}`);
    return json.data;
  }

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${output()}`);
    const ready = await fetch(`${url}/-/ready`).catch(() => null);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prometheus did not become ready:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    dir,
    output,
    query: async (expr, time) =>
      (await api<{ result: PromSeries[] }>('/api/v1/query', time === undefined ? { query: expr } : { query: expr, time: String(time) }))
        .result,
    queryRange: async (expr, start, end, step) =>
      (
        await api<{ result: PromSeries[] }>('/api/v1/query_range', {
          query: expr,
          start: String(start),
          end: String(end),
          step: String(step),
        })
      ).result,
    labelValues: (label, match) =>
      get<string[]>(`/api/v1/label/${encodeURIComponent(label)}/values?${new URLSearchParams({ 'match[]': match })}`),
    targets: async () => (await get<{ activeTargets: PromTarget[] }>('/api/v1/targets?state=active')).activeTargets,
    rules: async () => (await get<{ groups: Array<{ rules: PromRule[] }> }>('/api/v1/rules')).groups.flatMap((g) => g.rules),
    alerts: async () => (await get<{ alerts: Array<{ labels: Record<string, string>; state: string }> }>('/api/v1/alerts')).alerts,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
