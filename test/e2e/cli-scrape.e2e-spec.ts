/**
 * `gleaner scrape` as a user runs it: the built CLI as a child process against the built service and
 * the docs fixture (two hosts), with the browser for screenshots and wait_for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_COOKIE, SECRET_HEADER, startDocsSite, type DocsSite } from '../fixtures/docs-site/docs-site';
import { assertCliBuilt, runCli, STACK_TRACE, type CliEnv } from './cli-helpers/cli';
import { startService, type Service } from './cli-helpers/service';
import { tempDir } from './helpers';

jest.setTimeout(180_000);

let site: DocsSite;
let service: Service;
let env: CliEnv;

beforeAll(async () => {
  assertCliBuilt();
  site = await startDocsSite();
  service = await startService({
    env: { GLEANER_RESOLVE: site.resolve, GLEANER_BROWSER_ENABLED: 'true', GLEANER_BROWSER_MAX_BROWSERS: '1' },
  });
  env = { url: service.url, key: service.key };
});

afterAll(async () => {
  await service?.stop();
  await site?.close();
});

describe('gleaner scrape', () => {
  it('prints the page as markdown by default, with a one-line note on stderr', async () => {
    const run = await runCli(['scrape', site.url('docs.test', '/article')], env);
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('# Scraping without a schema\n')).toBe(true);
    expect(run.stdout).toContain('| Format | Use |');
    expect(run.stderr).toMatch(/job \w{26} · static · 200 text\/html · fetch/);
  });

  it('--as links prints one URL and anchor text per line; --as page_info JSON; --json the whole answer', async () => {
    const links = await runCli(['scrape', site.url('docs.test', '/article'), '--as', 'links', '--fetch-mode', 'static'], env);
    expect(links.code).toBe(0);
    expect(links.stdout.split('\n')).toContain(`${site.url('docs.test', '/guide/intro')}\tintroduction`);
    const info = await runCli(['scrape', site.url('docs.test', '/article'), '--as', 'page_info'], env);
    expect(JSON.parse(info.stdout)).toMatchObject({ title: 'Scraping without a schema', language: 'en' });
    const json = await runCli(['scrape', site.url('docs.test', '/report.pdf'), '--as', 'text', '--json'], env);
    expect(json.code).toBe(0);
    const answer = JSON.parse(json.stdout);
    expect(answer.data.text).toContain('Revenue grew by 12 percent');
    expect(answer.data.page_info.document.pages).toBe(3);
  });

  it('sends --cookie and --header to the page, --wait-for waits, --as screenshot -o writes a PNG', async () => {
    const cookie = await runCli(['scrape', site.url('docs.test', '/needs-cookie'), '--cookie', `session=${SECRET_COOKIE}`], env);
    expect(cookie.stdout).toContain('Welcome back, member.');
    const header = await runCli(
      ['scrape', site.url('docs.test', '/needs-header'), '-H', `X-Api-Key: ${SECRET_HEADER}`, '--as', 'text'],
      env,
    );
    expect(header.stdout).toContain('Key accepted.');
    const late = await runCli(['scrape', site.url('docs.test', '/late'), '--wait-for', '#late'], env);
    expect(late.stdout).toContain('Late content arrived');
    const file = join(tempDir('gleaner-cli-scrape-'), 'shot.png');
    const shot = await runCli(['scrape', site.url('docs.test', '/article'), '--as', 'screenshot', '-o', file], env);
    expect(shot.stderr).not.toMatch(STACK_TRACE);
    expect(shot.code).toBe(0);
    expect(readFileSync(file).subarray(0, 4).toString('latin1')).toBe('\x89PNG');
    expect(shot.stderr).toContain(`written to ${file}`);
  });

  it('exits 2 on bad usage or a refused request, 1 when the page fails', async () => {
    const noFile = await runCli(['scrape', site.url('docs.test', '/article'), '--as', 'screenshot'], env);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/needs -o FILE/);
    const badHeader = await runCli(['scrape', site.url('docs.test', '/article'), '-H', 'Host: evil.example'], env);
    expect(badHeader.code).toBe(2);
    expect(badHeader.stderr).toMatch(/body\.headers/);
    const image = await runCli(['scrape', site.url('docs.test', '/image.png'), '--fetch-mode', 'static'], env);
    expect(image.code).toBe(1);
    expect(image.stderr).toMatch(/unsupported_content/);
    const noHtml = await runCli(['scrape', site.url('docs.test', '/report.pdf'), '--as', 'html'], env);
    expect(noHtml.code).toBe(1);
    expect(noHtml.stderr).toMatch(/has no html/);
    for (const run of [noFile, badHeader, image, noHtml]) expect(run.stderr).not.toMatch(STACK_TRACE);
  });
});
