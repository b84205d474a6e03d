/**
 * `npm run test:swarm`: the cluster as its users run it, on a real one-node Docker Swarm (issue 36;
 * docs/operations-deploy.md is written from what this runs). Steps: docker.io and debootstrap installed if
 * missing; the test's own dockerd and swarm (test/swarm/daemon.ts); every image built from this repository
 * (test/swarm/images.ts); the secrets created; `docker stack deploy -c docker/stack.yaml -c
 * test/swarm/stack-override.yaml gleaner`; the test site and model server started as services on the
 * stack's network; the eight scenarios run by the driver container (test/swarm/testbed/driver.ts); the
 * numbers written to bench-results/swarm.json; the stack, the swarm and the daemon torn down, also when a
 * step failed. Exit 0 when every scenario passed.
 *
 * Environment: GLEANER_SWARM_COLD=0 skips the cold image build (the warm one is still measured);
 * SWARM_SCENARIOS=1,7 runs a subset (its result is not recorded); GLEANER_SWARM_KEEP=1 leaves the stack
 * and the daemon up for a look (then `npm run test:swarm -- --teardown`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { docker, mustDocker } from './docker-cli';
import { SOCKET, ensurePackages, startDaemon, teardown } from './daemon';
import { ROOT, TESTBED, buildImages } from './images';
import { dockerDirHash } from './docker-hash';

const STACK = 'gleaner';
const OUT = join(ROOT, '.swarm');
const log = (message: string) => console.log(`[swarm ${new Date().toISOString().slice(11, 19)}] ${message}`);
/** The machine's 1/5/15-minute load averages: recorded beside every number (the machine is shared). */
const load = () => loadavg().map((l) => Number(l.toFixed(1)));

/** The stack's secrets: every one the README names, random here (the driver knows them to look for leaks). */
function makeSecrets(bootstrapKey: string): Record<string, { secret: string; value: string }> {
  const token = (n: number) => randomBytes(n).toString('base64url');
  return {
    GLEANER_SECRET: { secret: 'gleaner_secret', value: token(36) },
    GLEANER_PREVIOUS_SECRETS: { secret: 'gleaner_previous_secrets', value: token(36) },
    GLEANER_BOOTSTRAP_KEY: { secret: 'gleaner_bootstrap_key', value: bootstrapKey },
    // Not the stack's plain `environment` values (docker/stack.yaml): the app must be seen to use the
    // secret's value, and a value that is also in the service's spec is no leak when inspect shows it.
    MONGODB_URI: { secret: 'mongodb_uri', value: `mongodb://mongo:27017/gleaner?appName=gleaner-${token(12)}` },
    REDIS_URL: { secret: 'redis_url', value: 'redis://redis:6379/0' },
    GLEANER_OPENAI_API_KEY: { secret: 'gleaner_openai_api_key', value: `sk-swarm-server-${token(18)}` },
    GLEANER_ANTHROPIC_API_KEY: { secret: 'gleaner_anthropic_api_key', value: `sk-ant-swarm-${token(18)}` },
    GLEANER_OPENROUTER_API_KEY: { secret: 'gleaner_openrouter_api_key', value: `sk-or-swarm-${token(18)}` },
    // A pool no scenario names (nothing goes through it), with credentials that must not show anywhere.
    GLEANER_PROXY_POOLS: {
      secret: 'gleaner_proxy_pools',
      value: JSON.stringify({ swarm: { proxies: [`http://swarm:${token(12)}@127.0.0.1:9`] } }),
    },
  };
}

/** The host ports the stack publishes in ingress mode (the API's 8080, Grafana's 3000) must be free. */
function checkPublishedPortsFree(): void {
  const listening = spawnSync('ss', ['-Hltn'], { encoding: 'utf8' }).stdout ?? '';
  for (const port of [8080, 3000]) {
    if (new RegExp(`:${port}\\s`).test(listening)) {
      throw new Error(
        `port ${port} is in use on this machine: docker/stack.yaml publishes it (routing mesh); stop what listens there first`,
      );
    }
  }
}

async function waitHealthy(): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const ls = await mustDocker([
      'service',
      'ls',
      '--filter',
      `label=com.docker.stack.namespace=${STACK}`,
      '--format',
      '{{.Name}} {{.Replicas}}',
    ]);
    const pending = ls
      .split('\n')
      .filter(Boolean)
      .filter((l) => {
        const m = /(\d+)\/(\d+)/.exec(l);
        return !m || m[1] !== m[2];
      });
    const unhealthy = (
      await docker(['ps', '-q', '--filter', `label=com.docker.stack.namespace=${STACK}`, '--filter', 'health=starting'])
    ).stdout.trim();
    if (pending.length === 0 && !unhealthy) return;
    if (Date.now() > deadline) throw new Error(`stack not healthy in 600 s: ${pending.join(', ')}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** Memory of each running task of the stack, by service (docker stats). */
async function memoryPerTask(): Promise<Record<string, string[]>> {
  const out = await mustDocker(['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}']);
  const byService: Record<string, string[]> = {};
  for (const line of out.split('\n').filter(Boolean)) {
    const [name, usage] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
    const svc = name.split('.')[0];
    (byService[svc] ??= []).push(usage.split(' / ')[0]);
  }
  return byService;
}

/** The image's embedded role as docs/operations-deploy.md runs it: /health, the admin key banner, the image's healthcheck. */
async function embeddedContainer(): Promise<Record<string, unknown>> {
  const started = Date.now();
  await mustDocker(['run', '-d', '--name', 'gleaner', '-p', '8080:8080', '-v', 'gleaner-data:/data', '--stop-timeout', '30', 'gleaner']);
  try {
    let health = '';
    let answered = false;
    while (Date.now() - started < 300_000 && !(answered && health === 'healthy')) {
      answered ||= spawnSync('curl', ['-fsS', 'http://localhost:8080/health'], { encoding: 'utf8' }).status === 0;
      health = (await mustDocker(['inspect', '--format', '{{.State.Health.Status}}', 'gleaner'])).trim();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const logs = await docker(['logs', 'gleaner']);
    const banner = /admin API key/i.test(logs.stdout + logs.stderr);
    const ok = answered && health === 'healthy' && banner;
    if (!ok) throw new Error(`embedded container: /health ${answered}, healthcheck ${health}, admin key banner ${banner}`);
    return { verdict: 'pass', healthy_s: (Date.now() - started) / 1000 };
  } finally {
    await docker(['rm', '-f', 'gleaner']);
    await docker(['volume', 'rm', 'gleaner-data']);
  }
}

/** The record as the table of docs/operations-deploy.md "Numbers" (pasted there after a recorded run). */
function numbersTable(record: Record<string, any>): string {
  const scenario = (prefix: string) => (record.scenarios ?? []).find((s: { scenario: string }) => s.scenario.startsWith(prefix)) ?? {};
  const n = (v: unknown, digits = 1) => (typeof v === 'number' ? v.toFixed(digits) : String(v ?? '–'));
  const at = (l: unknown) => (Array.isArray(l) ? ` (load ${l.join(' / ')})` : '');
  const during = (s: { load?: { start: number[]; end: number[] } }) =>
    s.load ? ` (load ${s.load.start[0]} → ${s.load.end[0]}, 1-min averages at start and end)` : '';
  const rows: Array<[string, string]> = [
    ['commit, load average at the start', `${String(record.commit).slice(0, 7)}, ${record.machine?.load_at_start?.join(' / ')}`],
    [
      'gleaner image build, cold / warm',
      `${n(record.build?.app_cold_s, 0)} s / ${n(record.build?.app_warm_s, 0)} s (${n((record.build?.app_image_bytes ?? 0) / 2 ** 30, 2)} GiB)${at(record.build?.load_at_end)}`,
    ],
    ['deploy to healthy', `${n(record.deploy_to_healthy_s, 0)} s${at(record.load_at_healthy)}`],
    ['crawl of 1,000 pages, 2 crawler tasks', `${n(scenario('1').numbers?.pages_per_s)} pages/s${during(scenario('1'))}`],
  ];
  const rates = scenario('2').numbers?.pages_per_s_by_crawler_tasks ?? {};
  rows.push([
    'pages/s with 1 / 2 / 3 crawler tasks (slow-300 model, one crawl)',
    `${n(rates['1'])} / ${n(rates['2'])} / ${n(rates['3'])}${during(scenario('2'))}`,
  ]);
  rows.push([
    'failover after docker kill of the owner (3 kills)',
    `${(scenario('3').numbers?.failover_s ?? []).map((x: number) => n(x)).join(', ')} s${during(scenario('3'))}`,
  ]);
  for (const [name, t] of Object.entries<any>(scenario('4').numbers?.requests ?? {})) {
    rows.push([
      `requests during the ${name} update: sent / failed raw / failed with one retry`,
      `${t.sent} / ${t.failedRaw} / ${t.failedRetried}${during(scenario('4'))}`,
    ]);
  }
  rows.push([
    'store (MongoDB-wire) kill → every replica answers again',
    `${n(scenario('5').numbers?.mongo?.recovery_s)} s${during(scenario('5'))}`,
  ]);
  rows.push(['Redis kill → every replica answers again', `${n(scenario('5').numbers?.redis?.recovery_s)} s${during(scenario('5'))}`]);
  const memory = typeof record.memory_per_task === 'object' ? record.memory_per_task : {};
  for (const [svc, mem] of Object.entries<any>(memory))
    rows.push([`memory per task, ${svc}`, `${Array.isArray(mem) ? mem.join(', ') : String(mem)}${at(record.load_at_memory)}`]);
  for (const s of record.scenarios ?? []) rows.push([`scenario ${s.scenario}`, `${s.verdict} (${n(s.seconds, 0)} s)${during(s)}`]);
  return ['| What | Measured |', '| --- | --- |', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n') + '\n';
}

async function main(): Promise<number> {
  const started = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, 'out'), { recursive: true });
  ensurePackages();
  checkPublishedPortsFree();
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'docker'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const record: Record<string, unknown> = {
    what: 'npm run test:swarm (issue 36): the stack on a one-node Docker Swarm; docs/operations-deploy.md',
    commit,
    docker_dir_sha256: dockerDirHash(ROOT),
    docker_dir_uncommitted_changes: dirty,
    machine: {
      cores: cpus().length,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      load_at_start: load(),
    },
  };
  let exitCode = 1;
  try {
    await startDaemon(join(OUT, 'dockerd.log'));
    record.docker_version = (await mustDocker(['version', '--format', '{{.Server.Version}}'])).trim();
    log('building images');
    record.build = { ...(await buildImages({ cold: process.env.GLEANER_SWARM_COLD !== '0' })), load_at_end: load() };

    record.embedded = await embeddedContainer();

    const bootstrapKey = `glk_${randomBytes(30).toString('hex').slice(0, 40)}`;
    const secrets = makeSecrets(bootstrapKey);
    for (const { secret, value } of Object.values(secrets)) await mustDocker(['secret', 'create', secret, '-'], { input: value });
    await mustDocker(['secret', 'create', 'grafana_admin_password', '-'], { input: randomBytes(18).toString('base64url') });

    log('docker stack deploy');
    const deployStarted = Date.now();
    await mustDocker(
      ['stack', 'deploy', '--resolve-image', 'never', '-c', 'docker/stack.yaml', '-c', 'test/swarm/stack-override.yaml', STACK].map((a) =>
        a.startsWith('docker/') || a.startsWith('test/') ? join(ROOT, a) : a,
      ),
      { echo: true },
    );
    // Grafana at 0 replicas: the override says so, but Debian's Docker 20.10 client drops a zero when it
    // merges the two files (the stack's `replicas: 1` stays), so the test scales it down as well.
    await mustDocker(['service', 'scale', '--detach', `${STACK}_grafana=0`]);
    // The test site and the stand-in model server, on the stack's network (addresses the guard allows).
    const network = `${STACK}_gleaner`;
    for (const [name, program] of [
      ['gleaner-testsite', 'site.js'],
      ['gleaner-model', 'model.js'],
    ]) {
      await mustDocker([
        'service',
        'create',
        '--detach',
        '--name',
        name,
        '--network',
        network,
        '--endpoint-mode',
        'dnsrr',
        TESTBED,
        'node',
        program,
      ]);
    }
    await waitHealthy();
    record.deploy_to_healthy_s = (Date.now() - deployStarted) / 1000;
    record.load_at_healthy = load();
    log(`stack healthy in ${record.deploy_to_healthy_s} s`);

    log('scenarios (driver container on the overlay network)');
    const driver = await docker(
      [
        'run',
        '--rm',
        '--name',
        'gleaner-swarm-driver',
        '--network',
        network,
        '-v',
        `${SOCKET}:/var/run/docker.sock`,
        '-v',
        `${join(OUT, 'out')}:/out`,
        '-e',
        `SWARM_BOOTSTRAP_KEY=${bootstrapKey}`,
        '-e',
        `SWARM_SECRETS=${JSON.stringify(Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, v.value])))}`,
        '-e',
        `SWARM_STACK=${STACK}`,
        '-e',
        'SWARM_SITE=gleaner-testsite',
        '-e',
        'SWARM_MODEL=gleaner-model',
        '-e',
        'DOCKER_BIN=/usr/local/bin/docker',
        ...(process.env.SWARM_SCENARIOS ? ['-e', `SWARM_SCENARIOS=${process.env.SWARM_SCENARIOS}`] : []),
        TESTBED,
        'node',
        'driver.js',
      ],
      { echo: true },
    );
    record.memory_per_task = await memoryPerTask().catch((e: Error) => e.message);
    record.load_at_memory = load();
    const results = existsSync(join(OUT, 'out', 'results.json'))
      ? JSON.parse(readFileSync(join(OUT, 'out', 'results.json'), 'utf8'))
      : { verdicts: [] };
    record.scenarios = results.verdicts;
    const all = (results.verdicts as Array<{ verdict: string }>) ?? [];
    const passed = all.filter((v) => v.verdict === 'pass').length;
    const notRun = (n: number) => (n > 0 ? `, ${n} not run (the driver exited ${driver.code})` : '');
    // A driver stopped before the end (`docker stop gleaner-swarm-driver`: the way to end a run early and
    // keep what finished) leaves scenarios without a verdict: the record says how many and why.
    record.driver_exit_code = driver.code;
    const expected = process.env.SWARM_SCENARIOS ? process.env.SWARM_SCENARIOS.split(',').length : 8;
    record.summary = `${passed} passed, ${all.length - passed} failed${notRun(expected - all.length)}`;
    exitCode = driver.code === 0 && all.length === 8 && passed === 8 ? 0 : 1;
    if (process.env.SWARM_SCENARIOS) exitCode = driver.code === 0 && passed === all.length ? 0 : 1;
  } catch (error) {
    record.error = (error as Error).stack ?? String(error);
    log(`failed: ${(error as Error).message}`);
  } finally {
    if (process.env.GLEANER_SWARM_KEEP === '1') log('GLEANER_SWARM_KEEP=1: the stack and the daemon stay up');
    else {
      log('teardown: stack, swarm, daemon');
      await teardown(STACK);
    }
  }
  record.total_s = (Date.now() - started) / 1000;
  record.load_at_end = load();
  writeFileSync(join(OUT, 'swarm.json'), JSON.stringify(record, null, 2) + '\n');
  writeFileSync(join(OUT, 'numbers.md'), numbersTable(record));
  if (!process.env.SWARM_SCENARIOS) writeFileSync(join(ROOT, 'bench-results', 'swarm.json'), JSON.stringify(record, null, 2) + '\n');
  log(
    `${String(record.summary ?? 'no scenario ran')}; numbers in ${process.env.SWARM_SCENARIOS ? '.swarm/swarm.json' : 'bench-results/swarm.json'}`,
  );
  console.log(String(record.summary ?? '0 passed, 1 failed'));
  return exitCode;
}

// Ctrl-C, a kill of the run or an error nothing caught: the daemon is still torn down.
process.on('uncaughtException', (error) => {
  log(`uncaught: ${error.stack ?? String(error)}; tearing down`);
  void teardown(STACK).finally(() => process.exit(1));
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: tearing down`);
    void teardown(STACK).finally(() => process.exit(130));
  });
}

const entry = process.argv.includes('--teardown') ? teardown(STACK).then(() => 0) : main();
entry.then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    void teardown(STACK).finally(() => process.exit(1));
  },
);
