/** The operators' CLI creates users (tenants) directly in the store; their keys work on the API. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startEmbedded } from './embedded-app';
import { http, tempDir } from './helpers';
import { ROOT } from './processes';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });

// Each test starts several CLI processes (Node start, store open): seconds apiece on a busy machine.
jest.setTimeout(180_000);

describe('gleaner users (CLI)', () => {
  it('creates and lists users whose first key works on the API', async () => {
    const dataDir = tempDir('gleaner-cli-');
    const created = run(['users', 'create', '--name', 'acme'], { DATA_DIR: dataDir });
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    const user = JSON.parse(created.stdout) as { id: string; name: string; key: { key: string } };
    expect(user).toMatchObject({ name: 'acme', is_admin: false });
    expect(user.key.key).toMatch(/^glk_[0-9A-Za-z]{40}$/);

    const listed = run(['users', 'list'], { DATA_DIR: dataDir });
    expect(listed.status).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { name: string }).name),
    ).toContain('acme');

    const env = await startEmbedded({ DATA_DIR: dataDir });
    try {
      const jobs = await http(env.baseUrl, 'GET', '/api/v1/jobs', { key: user.key.key });
      expect(jobs.status).toBe(200);
      expect(jobs.body).toEqual({ jobs: [] });
    } finally {
      await env.close();
    }
  });

  it('rejects bad usage with exit code 64 and bad configuration with a clear message', () => {
    expect(run(['users', 'create'], { DATA_DIR: tempDir() }).status).toBe(64);
    expect(run(['users', 'frobnicate'], { DATA_DIR: tempDir() }).status).toBe(64);
    const bad = run(['users', 'list'], { DATA_DIR: tempDir(), PORT: 'x' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/PORT/);
  });
});
