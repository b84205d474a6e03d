/**
 * Static checks of the deployment files (docker/, grafana/): there is no Docker engine in CI, so these
 * parse every file and hold it to the app's real contract (env var names, ports, metric names), and
 * run the two scripts the image uses (entrypoint.sh, healthcheck.mjs) directly.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse } from 'yaml';
import { envSchema } from '@app/config';

const ROOT = join(__dirname, '..', '..');
const DOCKER = join(ROOT, 'docker');
const GRAFANA = join(ROOT, 'grafana');

type Json = any;

const read = (path: string): string => readFileSync(path, 'utf8');
const yamlFile = (path: string): Json => parse(read(path));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Compose/Swarm durations: 30s, 1m30s, 500ms. */
function seconds(duration: string | undefined): number {
  if (!duration) return 10; // Docker's default stop timeout
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|us|ns|h|m|s)/g;
  let consumed = '';
  for (let m = re.exec(duration); m; m = re.exec(duration)) {
    const n = Number(m[1]);
    total += { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 }[m[2] as 'h' | 'm' | 's' | 'ms' | 'us' | 'ns'] * n;
    consumed += m[0];
  }
  if (consumed !== duration) throw new Error(`not a duration: ${duration}`);
  return total;
}

// ---------------------------------------------------------------------------------------------------
// PromQL: which metric names does an expression read?
// ---------------------------------------------------------------------------------------------------
const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);

function metricNames(expr: string): string[] {
  let s = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'); // string literals
  s = s.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' '); // label lists
  s = s.replace(/\{[^}]*\}/g, ' '); // label matchers
  s = s.replace(/\[[^\]]*\]/g, ' '); // ranges and subqueries
  s = s.replace(/\$\{?\w+\}?/g, ' '); // Grafana variables outside brackets
  const names: string[] = [];
  const re = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const before = s[m.index - 1];
    if (before && /[0-9.]/.test(before)) continue; // 1e3, 0.5
    const rest = s.slice(m.index + m[0].length);
    if (/^\s*\(/.test(rest)) continue; // function call
    if (PROMQL_KEYWORDS.has(m[0])) continue;
    names.push(m[0]);
  }
  return names;
}

/** Metrics Gleaner exports (docs/operations.md, "Metrics"; test/e2e/prometheus.e2e-spec.ts checks the list against live processes). */
const GLEANER_METRICS: Record<string, 'counter' | 'gauge' | 'histogram'> = {
  gleaner_http_requests_total: 'counter',
  gleaner_http_request_duration_seconds: 'histogram',
  gleaner_job_transitions_total: 'counter',
  gleaner_jobs: 'gauge',
  gleaner_queue_depth: 'gauge',
  gleaner_sse_clients: 'gauge',
  gleaner_auth_failures_total: 'counter',
  gleaner_rate_limited_requests_total: 'counter',
  gleaner_pages_total: 'counter',
  gleaner_fetch_duration_seconds: 'histogram',
  gleaner_llm_calls_total: 'counter',
  gleaner_llm_tokens_total: 'counter',
  gleaner_llm_cost_usd_total: 'counter',
  gleaner_llm_duration_seconds: 'histogram',
  gleaner_extractions_total: 'counter',
  gleaner_field_grounding_total: 'counter',
  gleaner_rate_limit_pauses_total: 'counter',
  gleaner_browser_pool_pages: 'gauge',
  gleaner_proxy_requests_total: 'counter',
  gleaner_auth_logins_total: 'counter',
  gleaner_auth_session_age_seconds: 'gauge',
  gleaner_lists_total: 'counter',
  gleaner_crawl_duplicates_total: 'counter',
  gleaner_crawl_model_calls_saved_total: 'counter',
  gleaner_proxy_failures_total: 'counter',
  gleaner_proxy_rested_total: 'counter',
  gleaner_webhook_deliveries_total: 'counter',
  gleaner_webhook_delivery_duration_seconds: 'histogram',
  gleaner_crawl_pages_total: 'counter',
  gleaner_crawl_page_tasks_total: 'counter',
  gleaner_crawl_takeovers_total: 'counter',
  gleaner_archive_pages_total: 'counter',
  gleaner_archive_written_bytes_total: 'counter',
  gleaner_archive_deleted_bytes_total: 'counter',
  gleaner_archive_stored_bytes: 'gauge',
  gleaner_archive_bodies: 'gauge',
  gleaner_monitor_runs_total: 'counter',
  gleaner_monitor_changes_total: 'counter',
  gleaner_monitor_pages_total: 'counter',
  gleaner_monitor_model_calls_saved_total: 'counter',
  gleaner_monitor_due: 'gauge',
  gleaner_monitor_running: 'gauge',
  gleaner_monitor_max_consecutive_failures: 'gauge',
  gleaner_tenant_deletions_total: 'counter',
  gleaner_tenant_deletions_pending: 'gauge',
};

function knownGleanerMetric(name: string): boolean {
  if (GLEANER_METRICS[name] && GLEANER_METRICS[name] !== 'histogram') return true;
  const base = name.replace(/_(bucket|count|sum)$/, '');
  return base !== name && GLEANER_METRICS[base] === 'histogram';
}

function checkExpr(expr: string, where: string): string[] {
  const problems: string[] = [];
  const names = metricNames(expr);
  if (names.length === 0) problems.push(`${where}: no metric in ${expr}`);
  for (const name of names) {
    if (!/^(gleaner_|process_|nodejs_)/.test(name) && name !== 'up') problems.push(`${where}: metric ${name} has no allowed prefix`);
    else if (name.startsWith('gleaner_') && !knownGleanerMetric(name)) problems.push(`${where}: unknown Gleaner metric ${name}`);
  }
  return problems;
}

describe('PromQL metric name extraction (test helper)', () => {
  it('finds metrics and skips functions, labels, keywords and variables', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(gleaner_http_request_duration_seconds_bucket{role=~"$role", route!~".*/stream"}[$__rate_interval]))) > 1',
      ),
    ).toEqual(['gleaner_http_request_duration_seconds_bucket']);
    expect(metricNames('deriv(max by (queue) (gleaner_queue_depth{state="waiting"})[15m:1m]) > 0 and max by (queue) (up) > 0')).toEqual([
      'gleaner_queue_depth',
      'up',
    ]);
    expect(metricNames('sum(rate(foo_total[5m])) * 3600 / scalar(bar)')).toEqual(['foo_total', 'bar']);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('every deployment file parses', () => {
  const files = [...walk(DOCKER), ...walk(GRAFANA)].filter((f) => /\.(ya?ml|json)$/.test(f));

  it('finds the files', () => {
    const names = files.map((f) => relative(ROOT, f)).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'docker/alerts.yml',
        'docker/compose.yaml',
        'docker/prometheus-swarm.yml',
        'docker/prometheus.yml',
        'docker/stack.yaml',
        'grafana/dashboards/gleaner-crawl.json',
        'grafana/dashboards/gleaner-overview.json',
        'grafana/provisioning/dashboards/gleaner.yaml',
        'grafana/provisioning/datasources/prometheus.yaml',
      ]),
    );
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s', (_name, file) => {
    const text = read(file);
    const value = file.endsWith('.json') ? JSON.parse(text) : parse(text, { prettyErrors: true });
    expect(value).toBeInstanceOf(Object);
  });
});

describe('application contract', () => {
  const defaults = envSchema.parse({});
  const appVars = new Set(Object.keys(envSchema.shape));

  it('ports in the deployment files are the app defaults', () => {
    expect(defaults.PORT).toBe(8080);
    expect(defaults.CRAWLER_PORT).toBe(8081);
  });

  it.each(['compose.yaml', 'stack.yaml'])('%s sets only environment variables Gleaner reads', (file) => {
    const services = yamlFile(join(DOCKER, file)).services;
    for (const name of ['api', 'crawler']) {
      for (const key of Object.keys(services[name].environment)) expect([name, key, appVars.has(key)]).toEqual([name, key, true]);
    }
  });

  it('the entrypoint loads only variables Gleaner reads', () => {
    const loaded = [...read(join(DOCKER, 'entrypoint.sh')).matchAll(/^load_secret (\w+) /gm)].map((m) => m[1]);
    expect(loaded).toContain('GLEANER_SECRET');
    for (const name of loaded) expect([name, appVars.has(name)]).toEqual([name, true]);
  });
});

describe('docker/Dockerfile', () => {
  const text = read(join(DOCKER, 'Dockerfile'));
  const lines = text.split('\n').filter((l) => !l.trimStart().startsWith('#'));
  const code = lines.join('\n');

  it('has no `# syntax=` line (a frontend image cannot be fetched without Docker Hub; the built-in one runs RUN --mount)', () => {
    expect(text).not.toMatch(/^#\s*syntax\s*=/im);
    expect(code).toMatch(/--mount=type=secret,id=ca_bundle/);
  });

  it('builds on Node 24 (bookworm-slim) in every stage', () => {
    expect(code).toMatch(/ARG NODE_IMAGE=node:24-bookworm-slim/);
    const froms = lines.filter((l) => /^FROM /.test(l));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM (\$\{NODE_IMAGE\}|node:24[-\w.]*) AS \w+/);
  });

  it('compiles, then drops dev dependencies before the runtime stage', () => {
    expect(code).toMatch(/npm (ci|install)\b/);
    expect(code).toMatch(/npm run build/);
    expect(code).toMatch(/npm prune --omit=dev/);
    expect(code).toMatch(/COPY --from=build \/app\/node_modules/);
    expect(code).toMatch(/COPY --from=build \/app\/package\.json/); // config.ts reads the version from it
  });

  it('installs Debian chromium and skips the Playwright download', () => {
    expect(code).toMatch(/apt-get install[^\n]*\\\n(\s+[\w-]+ \\\n)*?\s+chromium \\/);
    expect(code).toMatch(/PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1/);
    expect(code).toMatch(/CRAWLEE_DEFAULT_BROWSER_PATH=\/usr\/bin\/chromium/);
  });

  it('runs as a non-root user with /data, both ports, a healthcheck and tini', () => {
    const users = lines.filter((l) => /^USER /.test(l));
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^USER (root|0)\b/);
    expect(code).toMatch(/DATA_DIR=\/data/);
    expect(code).toMatch(/^VOLUME \["\/data"\]/m);
    expect(code).toMatch(/^EXPOSE 8080 8081$/m);
    expect(code).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["node", "\/app\/docker\/healthcheck\.mjs"\]/m);
    expect(code).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--", "\/app\/docker\/entrypoint\.sh"\]$/m);
    expect(code).toMatch(/^CMD \["dist\/apps\/api\/src\/main\.js"\]$/m);
  });

  it('has its context filter next to it, letting in what the build copies', () => {
    const ignore = read(join(DOCKER, 'Dockerfile.dockerignore'));
    for (const path of ['package.json', 'package-lock.json', 'apps', 'libs', 'docker/entrypoint.sh', 'docker/healthcheck.mjs']) {
      expect(ignore).toContain(`!${path}\n`);
    }
    for (const m of code.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const src of m[1].split(/\s+/)) expect([src, existsSync(join(ROOT, src))]).toEqual([src, true]);
    }
  });
});

describe('docker/entrypoint.sh', () => {
  const file = join(DOCKER, 'entrypoint.sh');
  const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  const printSecret = ['-e', 'process.stdout.write(String(process.env.GLEANER_SECRET) + "|" + process.argv.slice(1).join(","))', 'a', 'b'];

  it('is an executable POSIX shell script that execs node', () => {
    expect(statSync(file).mode & 0o111).toBe(0o111);
    const text = read(file);
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).toMatch(/^exec node "\$@"$/m);
    expect(spawnSync('sh', ['-n', file]).status).toBe(0);
  });

  it('loads every secret the README names, GLEANER_PREVIOUS_SECRETS included, each from /run/secrets/<name in lower case>', () => {
    const loaded = [...read(file).matchAll(/^load_secret (\w+) (\S+)$/gm)].map((m) => [m[1], m[2]]);
    const names = [
      'GLEANER_SECRET',
      'GLEANER_PREVIOUS_SECRETS',
      'GLEANER_BOOTSTRAP_KEY',
      'MONGODB_URI',
      'REDIS_URL',
      'GLEANER_OPENAI_API_KEY',
      'GLEANER_ANTHROPIC_API_KEY',
      'GLEANER_OPENROUTER_API_KEY',
      'GLEANER_PROXY_POOLS',
    ];
    expect(loaded).toEqual(names.map((n) => [n, `/run/secrets/${n.toLowerCase()}`]));
  });

  it('exports GLEANER_PROXY_POOLS from its secret file (proxy URLs carry credentials)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-entrypoint-'));
    writeFileSync(join(dir, 'pools'), '{"p":["http://u:pw@10.0.0.1:3128"]}\n');
    const run = spawnSync(file, ['-e', 'process.stdout.write(String(process.env.GLEANER_PROXY_POOLS))'], {
      env: { ...env, GLEANER_PROXY_POOLS_FILE: join(dir, 'pools') },
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('{"p":["http://u:pw@10.0.0.1:3128"]}');
  });

  it('exports GLEANER_PREVIOUS_SECRETS from its file as well (rotation with Docker secrets)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-entrypoint-'));
    writeFileSync(join(dir, 'previous'), 'old-secret-1,old-secret-2\n');
    const run = spawnSync(file, ['-e', 'process.stdout.write(String(process.env.GLEANER_PREVIOUS_SECRETS))'], {
      env: { ...env, GLEANER_PREVIOUS_SECRETS_FILE: join(dir, 'previous') },
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('old-secret-1,old-secret-2');
  });

  it('exports GLEANER_SECRET from a secret file and passes the arguments to node', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-entrypoint-'));
    writeFileSync(join(dir, 'secret'), 's'.repeat(40) + '\n');
    const run = spawnSync(file, printSecret, { env: { ...env, GLEANER_SECRET_FILE: join(dir, 'secret') }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${'s'.repeat(40)}|a,b`);
  });

  it('leaves the environment alone when there is no secret file', () => {
    const run = spawnSync(file, printSecret, { env: { ...env, GLEANER_SECRET: 'from-env' }, encoding: 'utf8' });
    expect(run.stdout).toBe('from-env|a,b');
  });

  it('fails loudly when a named secret file cannot be read', () => {
    const run = spawnSync(file, printSecret, { env: { ...env, GLEANER_SECRET_FILE: '/nonexistent/secret' }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot read \/nonexistent\/secret/);
  });
});

describe('docker/healthcheck.mjs', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  async function serve(status: number): Promise<number> {
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/health' ? status : 404;
      res.end('{}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
  function probe(env: Record<string, string>): Promise<number | null> {
    const child = spawn(process.execPath, [join(DOCKER, 'healthcheck.mjs')], {
      // Every server here answers (or refuses) at once: the deadline only has to outlast a slow start of
      // node and of its fetch on a busy machine.
      env: { HEALTHCHECK_TIMEOUT_MS: '60000', ...env },
      stdio: 'ignore',
    });
    return new Promise((resolve) => child.on('exit', resolve));
  }

  it('is healthy when the API port answers /health', async () => {
    expect(await probe({ PORT: String(await serve(200)), CRAWLER_PORT: String(await closedPort()) })).toBe(0);
  }, 120_000);

  it('falls back to the crawler port (crawler role)', async () => {
    expect(await probe({ PORT: String(await closedPort()), CRAWLER_PORT: String(await serve(200)) })).toBe(0);
  }, 120_000);

  it('is unhealthy when nothing answers 2xx', async () => {
    expect(await probe({ PORT: String(await serve(503)), CRAWLER_PORT: String(await closedPort()) })).toBe(1);
  }, 120_000);
});

describe('docker/compose.yaml (development)', () => {
  const compose = yamlFile(join(DOCKER, 'compose.yaml'));
  const services = compose.services;

  it('has mongo, redis, api, crawler, prometheus and grafana, each with a healthcheck', () => {
    for (const name of ['mongo', 'redis', 'api', 'crawler', 'prometheus', 'grafana']) {
      expect(services[name]).toBeDefined();
      expect(services[name].healthcheck?.test).toBeDefined();
    }
  });

  it('runs each role with the right entry point and cluster settings', () => {
    expect(services.api.command).toEqual(['dist/apps/api/src/main.js', '--role=api']);
    expect(services.crawler.command).toEqual(['dist/apps/crawler/src/main.js']);
    for (const name of ['api', 'crawler']) {
      const svc = services[name];
      expect(svc.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
      expect(svc.environment.MONGODB_URI).toMatch(/^mongodb:\/\/mongo:27017\//);
      expect(svc.environment.REDIS_URL).toBe('redis://redis:6379');
      expect(svc.environment.GLEANER_SECRET).toMatch(/^\$\{GLEANER_SECRET:\?[^}]+\}$/);
      expect(svc.depends_on.mongo.condition).toBe('service_healthy');
      expect(svc.depends_on.redis.condition).toBe('service_healthy');
      expect(seconds(svc.stop_grace_period)).toBeGreaterThanOrEqual(30);
      expect(seconds(svc.stop_grace_period) * 1000).toBeGreaterThan(Number(svc.environment.GLEANER_SHUTDOWN_GRACE_MS));
    }
  });

  it('persists Redis with AOF and mounts the Prometheus and Grafana files that exist', () => {
    expect(services.redis.command.join(' ')).toMatch(/--appendonly yes/);
    expect(services.redis.command.join(' ')).toMatch(/--maxmemory-policy noeviction/);
    const mounts: string[] = [...services.prometheus.volumes, ...services.grafana.volumes];
    for (const mount of mounts.filter((m) => m.startsWith('.'))) {
      const source = mount.split(':')[0];
      expect([source, existsSync(join(DOCKER, source))]).toEqual([source, true]);
    }
    expect(mounts).toContain('./prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(mounts).toContain('./alerts.yml:/etc/prometheus/alerts.yml:ro');
  });
});

describe('docker/stack.yaml (Swarm)', () => {
  const stack = yamlFile(join(DOCKER, 'stack.yaml'));
  const services = stack.services;

  it('has api and crawler with healthchecks, a grace period of at least 30 s and two replicas', () => {
    for (const name of ['api', 'crawler']) {
      const svc = services[name];
      expect(svc.healthcheck.test).toEqual(['CMD', 'node', '/app/docker/healthcheck.mjs']);
      expect(seconds(svc.stop_grace_period)).toBeGreaterThanOrEqual(30);
      expect(seconds(svc.stop_grace_period) * 1000).toBeGreaterThan(Number(svc.environment.GLEANER_SHUTDOWN_GRACE_MS));
      expect(svc.deploy.replicas).toBe(2);
      expect(svc.deploy.update_config.order).toBe('start-first');
      expect(svc.deploy.rollback_config).toBeDefined();
      expect(svc.deploy.resources.limits.memory).toBeDefined();
      expect(svc.networks).toEqual(['gleaner']);
      expect(svc.secrets.map((s: Json) => s.source)).toContain('gleaner_secret');
      expect(svc.environment.GLEANER_SECRET).toBeUndefined(); // comes from the secret via entrypoint.sh
      expect(svc.environment.MONGODB_URI).toMatch(/^mongodb:\/\/mongo:27017\//);
      expect(svc.environment.REDIS_URL).toBe('redis://redis:6379');
    }
    expect(services.api.command).toEqual(['dist/apps/api/src/main.js', '--role=api']);
    expect(services.crawler.command).toEqual(['dist/apps/crawler/src/main.js']);
    expect(seconds(services.crawler.stop_grace_period)).toBeGreaterThanOrEqual(40);
  });

  it('sizes the crawler for Chromium', () => {
    const memory: string = services.crawler.deploy.resources.limits.memory;
    const gib = Number(memory.replace(/[GM]$/, '')) / (memory.endsWith('M') ? 1024 : 1);
    expect(gib).toBeGreaterThanOrEqual(2);
  });

  it('keeps Redis persistent (AOF) and pins stateful services to the data node', () => {
    expect(services.redis.command.join(' ')).toMatch(/--appendonly yes/);
    for (const name of ['mongo', 'redis', 'prometheus', 'grafana']) {
      expect(services[name].deploy.replicas).toBe(1);
      expect(services[name].deploy.placement.constraints).toContain('node.labels.gleaner.data == true');
    }
  });

  it('declares an overlay network, external secrets and configs whose files exist', () => {
    expect(stack.networks.gleaner.driver).toBe('overlay');
    expect(stack.secrets.gleaner_secret.external).toBe(true);
    for (const [name, config] of Object.entries<Json>(stack.configs)) {
      expect([name, existsSync(join(DOCKER, config.file))]).toEqual([name, true]);
    }
    const used = Object.values<Json>(services).flatMap((s) => [...(s.configs ?? []), ...(s.secrets ?? [])].map((c: Json) => c.source));
    for (const source of used) expect([source, Boolean(stack.configs[source] ?? stack.secrets[source])]).toEqual([source, true]);
  });
});

describe('Prometheus configuration', () => {
  const defaults = envSchema.parse({});

  it('compose scrapes the api and crawler services on the app ports', () => {
    const config = yamlFile(join(DOCKER, 'prometheus.yml'));
    const jobs = Object.fromEntries(config.scrape_configs.map((j: Json) => [j.job_name, j]));
    expect(jobs['gleaner-api'].static_configs[0].targets).toEqual([`api:${defaults.PORT}`]);
    expect(jobs['gleaner-crawler'].static_configs[0].targets).toEqual([`crawler:${defaults.CRAWLER_PORT}`]);
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
  });

  it('Swarm discovers every replica through tasks.<service> DNS', () => {
    const config = yamlFile(join(DOCKER, 'prometheus-swarm.yml'));
    const jobs = Object.fromEntries(config.scrape_configs.map((j: Json) => [j.job_name, j]));
    expect(jobs['gleaner-api'].dns_sd_configs[0]).toMatchObject({ names: ['tasks.api'], type: 'A', port: defaults.PORT });
    expect(jobs['gleaner-crawler'].dns_sd_configs[0]).toMatchObject({ names: ['tasks.crawler'], type: 'A', port: defaults.CRAWLER_PORT });
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
  });

  it('alert rules are complete and read only known metrics', () => {
    const rules = yamlFile(join(DOCKER, 'alerts.yml')).groups.flatMap((g: Json) => g.rules);
    const names = rules.map((r: Json) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'GleanerApi5xxRatioHigh',
        'GleanerQueueBacklogGrowing',
        'GleanerCrawlerDown',
        'GleanerApiLatencyP99High',
        'GleanerLlmErrorRatioHigh',
      ]),
    );
    const problems: string[] = [];
    for (const rule of rules) {
      expect(rule.expr).toBeTruthy();
      expect(rule.for).toBeTruthy();
      expect(rule.labels?.severity).toMatch(/^(warning|critical)$/);
      expect(rule.annotations?.summary).toBeTruthy();
      problems.push(...checkExpr(rule.expr, rule.alert));
    }
    expect(problems).toEqual([]);
  });
});

describe('Grafana', () => {
  const datasources = yamlFile(join(GRAFANA, 'provisioning', 'datasources', 'prometheus.yaml')).datasources;
  const provider = yamlFile(join(GRAFANA, 'provisioning', 'dashboards', 'gleaner.yaml')).providers[0];
  const dashboardFiles = readdirSync(join(GRAFANA, 'dashboards')).filter((f) => f.endsWith('.json'));
  const dashboards: Array<[string, Json]> = dashboardFiles.map((f) => [f, JSON.parse(read(join(GRAFANA, 'dashboards', f)))]);
  const dsUid = datasources[0].uid;

  it('provisions the Prometheus datasource with uid prometheus and a file dashboard provider', () => {
    expect(datasources).toHaveLength(1);
    expect(datasources[0]).toMatchObject({ uid: 'prometheus', type: 'prometheus', url: 'http://prometheus:9090' });
    expect(provider.type).toBe('file');
    expect(provider.options.path).toBe('/etc/grafana/dashboards');
  });

  it('has the overview and crawl dashboards with unique uids', () => {
    const uids = dashboards.map(([, d]) => d.uid);
    expect(uids).toEqual(expect.arrayContaining(['gleaner-overview', 'gleaner-crawl']));
    expect(new Set(uids).size).toBe(uids.length);
    for (const [file, d] of dashboards) {
      expect([file, d.uid]).toEqual([file, file.replace(/\.json$/, '')]);
      expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
      expect(d.id ?? null).toBeNull();
    }
  });

  it.each(dashboards)('%s: role and instance variables, valid layout, one datasource uid, allowed metrics', (_file, d) => {
    const variables = Object.fromEntries(d.templating.list.map((v: Json) => [v.name, v]));
    expect(variables.role?.type).toBe('query');
    expect(variables.instance?.type).toBe('query');
    const problems: string[] = [];
    const ids = new Set<number>();
    const cells = new Set<string>();
    for (const v of d.templating.list) {
      if (v.type === 'query') {
        expect(v.datasource.uid).toBe(dsUid);
        problems.push(...checkExpr(v.definition.replace(/^label_values\((.*),\s*\w+\)$/, '$1'), `variable ${v.name}`));
      }
    }
    for (const panel of d.panels) {
      expect(ids.has(panel.id)).toBe(false);
      ids.add(panel.id);
      const { x, y, w, h } = panel.gridPos;
      expect(x + w).toBeLessThanOrEqual(24);
      for (let i = x; i < x + w; i++) {
        for (let j = y; j < y + h; j++) {
          if (cells.has(`${i},${j}`)) problems.push(`overlap at ${panel.title} (${i},${j})`);
          cells.add(`${i},${j}`);
        }
      }
      if (panel.type === 'row') continue;
      expect(panel.datasource?.uid).toBe(dsUid);
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets) {
        expect(target.datasource?.uid).toBe(dsUid);
        problems.push(...checkExpr(target.expr, `${panel.title} ${target.refId}`));
        // Gleaner series are filtered by the dashboard variables (`up` has no role label).
        for (const m of target.expr.matchAll(/(gleaner_\w+|process_\w+|nodejs_\w+)\{([^}]*)\}/g)) {
          if (!m[2].includes('role=~"$role"') || !m[2].includes('instance=~"$instance"'))
            problems.push(`${panel.title}: ${m[1]} not filtered`);
        }
        if (/\b(gleaner|process|nodejs)_\w+(?![\w{])/.test(target.expr.replace(/\{[^}]*\}/g, '{}')))
          problems.push(`${panel.title}: bare metric`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the overview covers every metric Gleaner exports or will export', () => {
    const overview = dashboards.find(([, d]) => d.uid === 'gleaner-overview')![1];
    const used = new Set(overview.panels.flatMap((p: Json) => (p.targets ?? []).flatMap((t: Json) => metricNames(t.expr))));
    const missing = Object.keys(GLEANER_METRICS).filter(
      (name) => !used.has(name) && !used.has(`${name}_bucket`) && !used.has(`${name}_count`),
    );
    expect(missing).toEqual([]);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(used.has(name)).toBe(true);
    }
  });

  it('compose mounts and stack configs deliver every dashboard to the provider path', () => {
    const stack = yamlFile(join(DOCKER, 'stack.yaml'));
    const targets: string[] = stack.services.grafana.configs.map((c: Json) => c.target);
    for (const file of dashboardFiles) expect(targets).toContain(`${provider.options.path}/${file}`);
    const compose = yamlFile(join(DOCKER, 'compose.yaml'));
    expect(compose.services.grafana.volumes).toContain(`../grafana/dashboards:${provider.options.path}:ro`);
  });
});
