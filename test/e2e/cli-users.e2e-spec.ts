/** The operators' CLI creates users (tenants) directly in the store; their keys work on the API. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli-helpers/cli';
import { startEmbedded } from './embedded-app';
import { http, tempDir } from './helpers';
import { ROOT } from './processes';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const run = (args: string[], env: Record<string, string>, cwd = ROOT) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });

// Each test starts several CLI processes (Node start, store open): seconds apiece on a busy machine.
jest.setTimeout(180_000);

describe('gleaner users (CLI)', () => {
  it('creates and lists users whose first key works on the API', async () => {
    const dataDir = tempDir('gleaner-cli-');
    // A new store is made only where --data-dir says so.
    const created = run(['users', 'create', '--name', 'acme', '--data-dir', dataDir], {});
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
      expect(jobs.body).toEqual({ jobs: [], total: 0 });
    } finally {
      await env.close();
    }
  });

  it('deletes a user through the service: only with --yes and an admin key; its keys stop; a second time is a 404', async () => {
    const env = await startEmbedded();
    try {
      const tenant = (await http(env.baseUrl, 'POST', '/api/v1/users', { key: env.adminKey, body: { name: 'leaving' } })).body;
      const site = await http(env.baseUrl, 'POST', '/api/v1/sites', {
        key: tenant.key.key,
        body: { url: 'https://shop.example/', name: 's' },
      });
      expect(site.status).toBe(201);
      const admin = { url: env.baseUrl, key: env.adminKey };

      // Without --yes: a usage error (exit 2) and nothing happens.
      const unconfirmed = await runCli(['users', 'delete', tenant.id], admin);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toContain('cannot be undone: add --yes to confirm');
      expect((await http(env.baseUrl, 'GET', `/api/v1/sites/${site.body.id}`, { key: tenant.key.key })).status).toBe(200);
      // A tenant's key is refused by the service (403: exit 3), and nothing happens either.
      const refused = await runCli(['users', 'delete', tenant.id, '--yes'], { url: env.baseUrl, key: tenant.key.key });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/403|admin/);
      expect((await http(env.baseUrl, 'GET', '/api/v1/jobs', { key: tenant.key.key })).status).toBe(200);

      const deleted = await runCli(['users', 'delete', tenant.id, '--yes'], admin);
      expect(deleted.stderr).toBe('');
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toBe(`User ${tenant.id} deleted, with everything it owned.\n`);
      expect((await http(env.baseUrl, 'GET', '/api/v1/jobs', { key: tenant.key.key })).status).toBe(401);
      const listed = (await http(env.baseUrl, 'GET', '/api/v1/users', { key: env.adminKey })).body.users;
      expect(listed.map((u: { id: string }) => u.id)).not.toContain(tenant.id);

      const again = await runCli(['users', 'delete', tenant.id, '--yes', '--json'], admin);
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stderr)).toMatchObject({ error: { status: 404, detail: 'User not found.' } });
      // Its own user (the admin's): a 409, exit 1.
      const self = listed.find((u: { is_admin: boolean }) => u.is_admin);
      const own = await runCli(['users', 'delete', self.id, '--yes'], admin);
      expect(own.code).toBe(1);
      expect(own.stderr).toContain('You cannot delete your own user');
    } finally {
      await env.close();
    }
  });

  it('refuses to start a new store where there is none, unless --data-dir is given', () => {
    const elsewhere = tempDir('gleaner-cli-elsewhere-');
    for (const args of [
      ['users', 'create', '--name', 'lost'],
      ['users', 'list'],
    ]) {
      const refused = run(args, {}, elsewhere);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`no Gleaner store in ${join(elsewhere, 'data')}`);
      expect(refused.stderr).toContain('--data-dir DIR');
      expect(refused.stdout).toBe('');
    }
    const emptyDataDir = tempDir('gleaner-cli-empty-');
    const refused = run(['users', 'create', '--name', 'lost'], { DATA_DIR: emptyDataDir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`no Gleaner store in ${emptyDataDir} (DATA_DIR)`);
    // Nothing was made: neither a data directory nor a secret.
    expect(existsSync(join(elsewhere, 'data'))).toBe(false);
    expect(readdirSync(emptyDataDir)).toEqual([]);
  });

  it('has --help on every local command and subcommand (exit 0, usage on stdout)', () => {
    for (const args of [
      ['users', '--help'],
      ['users', 'create', '--help'],
      ['users', 'list', '-h'],
      ['users', 'delete', '--help'],
      ['convert', '--help'],
      ['help', 'users'],
    ]) {
      const help = run(args, {});
      expect({ args, status: help.status }).toEqual({ args, status: 0 });
      expect(help.stdout).toMatch(/^Usage: gleaner (users|convert)/);
      expect(help.stderr).toBe('');
    }
  });

  it('rejects bad usage with exit code 64 and bad configuration with a clear message', () => {
    expect(run(['users', 'create'], { DATA_DIR: tempDir() }).status).toBe(64);
    expect(run(['users', 'frobnicate'], { DATA_DIR: tempDir() }).status).toBe(64);
    const bad = run(['users', 'list', '--data-dir', tempDir()], { PORT: 'x' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/PORT/);
  });
});
