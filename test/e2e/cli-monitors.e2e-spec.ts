/**
 * `gleaner monitors ...` against the built service: create, list, get, run, runs, changes, pause,
 * resume, delete, and `watch` streaming the changes of runs as they are found.
 */
import { pageUrlOf, startModelServer, type Json, type ModelServer } from '../fixtures/model-server';
import { startMonitorSite, type MonitorSite } from '../fixtures/monitor-site';
import { assertCliBuilt, jsonLines, runCli, startCli, STACK_TRACE, type CliEnv, type CliProcess } from './cli-helpers/cli';
import { startService, type Service } from './cli-helpers/service';
import { waitFor } from './helpers';

jest.setTimeout(240_000);

const SCHEMA = '{"name": "string", "price": "number", "items": [{"sku": "string", "price": "number"}]}';

let site: MonitorSite;
let models: ModelServer;
let service: Service;
let env: CliEnv;
const running: CliProcess[] = [];

beforeAll(async () => {
  assertCliBuilt();
  site = await startMonitorSite(3);
  models = await startModelServer({ answer: (request) => ((pageUrlOf(request) && site.truth(pageUrlOf(request)!)) || undefined) as Json });
  service = await startService({ env: { GLEANER_MONITOR_JITTER_S: '0', GLEANER_MONITOR_TICK_MS: '100' } });
  env = { url: service.url, key: service.key, GLEANER_MODEL_BASE_URL: models.openaiBaseUrl, GLEANER_MODEL_API_KEY: 'sk-cli-monitor' };
});

afterAll(async () => {
  await Promise.all(running.map((cli) => cli.stop()));
  await service?.stop();
  await site?.close();
  await models?.close();
});

const ok = async (args: string[]) => {
  const result = await runCli(args, env);
  expect([args.join(' '), result.code, result.stderr]).toEqual([args.join(' '), 0, '']);
  return result.stdout;
};

describe('gleaner monitors', () => {
  let id = '';

  it('creates a monitor whose first run starts at once, and watch streams its changes as they are found', async () => {
    const created = JSON.parse(
      await ok([
        'monitors',
        'create',
        `${site.url}/`,
        '--name',
        'cli shop',
        '--schema',
        SCHEMA,
        '--every',
        '1h',
        '--model',
        'openai/gpt-4o-mini',
        '--fetch-mode',
        'static',
        '--max-depth',
        '1',
        '--json',
      ]),
    );
    id = created.id;
    expect(created).toMatchObject({ name: 'cli shop', schedule: { every: '1h' }, paused: false });
    expect(JSON.stringify(created)).not.toContain('sk-cli-monitor');
    const watch = startCli(['monitors', 'watch', id, '--since', '2000-01-01T00:00:00Z', '--interval', '1'], env);
    running.push(watch);
    const pages = site.products.size + 2;
    await waitFor(async () => jsonLines(watch.stdout).length >= pages, 120_000);
    expect(jsonLines(watch.stdout).every((c) => c.kind === 'added')).toBe(true);
    // The first run ended: a manual run finds the changed price, and watch prints it.
    await waitFor(async () => JSON.parse(await ok(['monitors', 'runs', id, '--json'])).runs[0]?.status === 'completed', 60_000);
    site.setPrice('1', '12.00');
    expect(await ok(['monitors', 'run', id])).toMatch(/^Run \S+ started: crawl job \w{26}\n$/);
    await waitFor(async () => jsonLines(watch.stdout).some((c) => c.kind === 'changed'), 120_000);
    const changed = jsonLines(watch.stdout).find((c) => c.kind === 'changed');
    expect(changed).toMatchObject({ key: { url: `${site.url}/p/1` }, fields: [{ path: 'price', before: 10, after: 12 }] });
    await watch.stop();
  });

  it('lists, shows, reads runs and changes, pauses, resumes and deletes', async () => {
    expect(await ok(['monitors', 'list'])).toMatch(/cli shop/);
    expect(await ok(['monitors', 'get', id])).toMatch(/schedule\s+every 1h/);
    const runs = JSON.parse(await ok(['monitors', 'runs', id, '--json']));
    expect(runs.total).toBeGreaterThanOrEqual(2);
    expect(await ok(['monitors', 'runs', id])).toMatch(/STATUS/);
    const changed = jsonLines(await ok(['monitors', 'changes', id, '--kind', 'changed']));
    expect(changed.map((c) => c.key.url)).toEqual([`${site.url}/p/1`]);
    expect(await ok(['monitors', 'pause', id])).toMatch(/state\s+paused/);
    expect(await ok(['monitors', 'resume', id])).toMatch(/state\s+active/);
    expect(await ok(['monitors', 'delete', id])).toBe(`Monitor ${id} deleted.\n`);
    const gone = await runCli(['monitors', 'get', id], env);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/not found/i);
    expect(gone.stderr).not.toMatch(STACK_TRACE);
  });

  it('creates a monitor of a list of pages from --urls (stdin here); its runs are batch jobs', async () => {
    const list = ['# the pages to watch', `${site.url}/p/2`, '', `${site.url}/p/3`, `${site.url}/p/2#again`].join('\n');
    const args = ['monitors', 'create', '--urls', '-', '--name', 'cli list', '--schema', SCHEMA, '--every', '1h'];
    const created = await runCli([...args, '--model', 'openai/gpt-4o-mini', '--paused', '--json'], env, { stdin: list });
    expect([created.code, created.stderr]).toEqual([0, '']);
    const monitor = JSON.parse(created.stdout);
    expect(monitor).toMatchObject({ url: null, urls: [`${site.url}/p/2`, `${site.url}/p/3`], url_count: 2, paused: true });
    expect(await ok(['monitors', 'get', monitor.id])).toMatch(/pages\s+2 listed/);
    expect(await ok(['monitors', 'run', monitor.id])).toMatch(/^Run \S+ started: batch job \w{26}\n$/);
    await waitFor(async () => JSON.parse(await ok(['monitors', 'runs', monitor.id, '--json'])).runs[0]?.status === 'completed', 60_000);
    const added = jsonLines(await ok(['monitors', 'changes', monitor.id, '--kind', 'added']));
    expect(added.map((c) => c.key.url).sort()).toEqual([`${site.url}/p/2`, `${site.url}/p/3`]);
    const both = await runCli(['monitors', 'create', `${site.url}/`, ...args.slice(2)], env, { stdin: list });
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/not both/);
    const empty = await runCli(args, env, { stdin: '# nothing\n' });
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/lists no URL/);
    await ok(['monitors', 'delete', monitor.id]);
  });

  it('refuses a create without a schedule, and shows the service 422 at its field', async () => {
    const none = await runCli(['monitors', 'create', `${site.url}/`, '--name', 'x', '--schema', SCHEMA], env);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/--every and --cron/);
    const bad = await runCli(
      ['monitors', 'create', `${site.url}/`, '--name', 'x', '--schema', SCHEMA, '--cron', '61 * * * *', '--model', 'openai/gpt-4o-mini'],
      env,
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/schedule\.cron/);
  });
});
