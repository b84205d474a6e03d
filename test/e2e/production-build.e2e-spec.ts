/**
 * The production build (dist/, what the Docker image ships) holds no test-only code: the test job type,
 * its controller and the content worker's crash hooks exist only in the test app (test/test-app), and the
 * built API started as production knows no test-jobs route.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { http, tempDir } from './helpers';
import { API_MAIN, ROOT, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(120_000);

const KEY = 'glk_' + 'P'.repeat(20) + 'p'.repeat(20);
/** What only the test app defines: the test job handler and controller, their route, the crash-hook markers. */
const TEST_ONLY = ['TestJobHandler', 'TestJobsController', 'api/v1/test-jobs', 'gleaner-test:'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('the production build', () => {
  beforeAll(() => assertBuilt());

  it('holds no test-only code and no fixture', () => {
    const files = filesUnder(join(ROOT, 'dist'));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => {
      const name = relative(ROOT, file);
      if (/fixture|test-|\.spec\./i.test(name)) return [name];
      const text = readFileSync(file, 'utf8');
      return TEST_ONLY.filter((needle) => text.includes(needle)).map((needle) => `${name}: ${needle}`);
    });
    expect(found).toEqual([]);
  });

  it('records the sources it was built from, so npm start starts it without a build (issue 40)', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'apps', 'api', 'build-if-stale.cjs'), '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect([check.status, check.stdout.trim()]).toEqual([0, 'up to date']);
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.prestart).toBe('node apps/api/build-if-stale.cjs');
    expect(scripts.postbuild).toContain('build-if-stale.cjs --write');
  });

  it('started as production, answers 404 on the test-jobs route', async () => {
    let api: AppProcess | undefined;
    try {
      api = await startProcess(
        'production',
        API_MAIN,
        [],
        { DATA_DIR: tempDir('gleaner-production-'), GLEANER_BOOTSTRAP_KEY: KEY },
        'PORT',
      );
      const res = await http(api.url, 'POST', '/api/v1/test-jobs', { key: KEY, body: { steps: 1, step_ms: 0 } });
      expect(res.status).toBe(404);
      expect((await http(api.url, 'GET', '/api/v1/jobs', { key: KEY })).status).toBe(200);
    } finally {
      await api?.stop();
    }
  });
});
