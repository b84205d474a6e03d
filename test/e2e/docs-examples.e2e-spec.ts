/**
 * Executable documents: every shell example of README.md, docs/*.md and apps/cli/README.md runs here against
 * the built service (embedded), the fixture quotes site standing in for quotes.toscrape.com and the local
 * model server behind the service's provider endpoints, and its documented answer is checked. The rules
 * (markers, rewriting, expectations) are in docs/contributing.md "Executable documents".
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startLoginSite, type LoginSite } from '../fixtures/login-site/login-site';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { documentPaths, examplesOf, type DocExample } from '../docs/doc-examples';
import { LOGIN_EXAMPLE_HOST } from '../docs/doc-rewrite';
import { makeWrappers, runExample, type RunnerSetup } from '../docs/example-runner';
import { assertCliBuilt, CLI_MAIN } from './cli-helpers/cli';
import { docsNamesSuite } from './docs-names.suite';
import { startService, type Service } from './cli-helpers/service';
import { tempDir } from './helpers';
import { ROOT } from './processes';

jest.setTimeout(600_000);

const examples: DocExample[] = documentPaths(ROOT).flatMap((path) => examplesOf(ROOT, path));
const runnable = examples.filter((e) => e.skip === undefined && e.badMarker === undefined);
const marked = examples.filter((e) => e.skip !== undefined || e.badMarker !== undefined);

let site: FixtureSite;
let models: ModelServer;
let login: LoginSite;
/** The credentials docs/auth-profiles.md's example profile logs in with (the login fixture takes them). */
const DOC_LOGIN = { username: 'alice', password: 'correct horse battery staple' };
let service: Service;
let setup: RunnerSetup;
let bin: string;

beforeAll(async () => {
  assertCliBuilt();
  // The quotes site without its 2 s Crawl-delay: the examples' crawls need not wait it out page by page.
  [site, models, login] = await Promise.all([
    startFixtureSite({ crawlDelaySeconds: 0 }),
    startModelServer(),
    // docs/auth-profiles.md's site behind a login, under the name its examples give it.
    startLoginSite({ memberHost: LOGIN_EXAMPLE_HOST, ...DOC_LOGIN }),
  ]);
  service = await startService({
    env: {
      // The model endpoint: a request's llm_config without base_url goes to the operator's endpoint.
      GLEANER_OPENAI_BASE_URL: models.openaiBaseUrl,
      GLEANER_OPENROUTER_BASE_URL: models.openaiBaseUrl,
      GLEANER_ANTHROPIC_BASE_URL: models.anthropicBaseUrl,
      GLEANER_OLLAMA_BASE_URL: models.url,
      GLEANER_RESOLVE: `${LOGIN_EXAMPLE_HOST}=127.0.0.1`,
      LOG_LEVEL: 'warn',
    },
  });
  setup = {
    serviceUrl: service.url,
    key: service.key,
    quotesSiteUrl: site.url,
    loginSiteUrl: `http://${LOGIN_EXAMPLE_HOST}:${login.port}`,
    node: process.execPath,
    cliMain: CLI_MAIN,
  };
  bin = makeWrappers(setup);
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), models?.close(), login?.close()]);
});

it('finds the examples of every document', () => {
  const files = new Set(examples.map((e) => e.file));
  for (const file of ['README.md', 'docs/scrape.md', 'docs/migrating.md', 'apps/cli/README.md']) expect(files).toContain(file);
  expect(runnable.length).toBeGreaterThanOrEqual(8);
});

it('refuses any address that is not loopback, before the example runs and again in the curl and gleaner wrappers', async () => {
  const leftover: DocExample = { file: 'x.md', line: 1, lang: 'sh', code: 'curl https://example.org/' };
  expect((await runExample(leftover, setup, bin)).problems).toEqual([
    'not run: addresses left after rewriting that are not loopback: https://example.org',
  ]);
  for (const [program, arg] of [
    ['curl', 'https://example.org/'],
    ['curl', 'example.org/path'],
    ['gleaner', 'http://10.0.0.1/'],
  ]) {
    const run = spawnSync(join(bin, program), ['scrape', arg], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', DOC_RUN_DIR: tempDir() },
    });
    expect({ program, arg, status: run.status, stderr: run.stderr }).toEqual({
      program,
      arg,
      status: 97,
      stderr: `docs harness: refused a non-loopback address: ${arg}\n`,
    });
  }
});

describe.each(marked.map((e) => [`${e.file}:${e.line}`, e] as const))('%s (marked)', (_name, example) => {
  it('says why it cannot run here', () => {
    expect(example.badMarker).toBeUndefined();
    expect(example.skip).toMatch(/\w{3,}.*\w{3,}/);
  });
});

describe.each(runnable.map((e) => [`${e.file}:${e.line}`, e] as const))('%s', (_name, example) => {
  it('runs as documented', async () => {
    const outcome = await runExample(example, setup, bin);
    if (outcome.problems.length > 0) {
      throw new Error(`${outcome.problems.join('\n')}\n\n--- transcript ---\n${outcome.transcript.slice(-6000)}`);
    }
  });
});

// After the examples: docs/auth-profiles.md's profile logged in to the login fixture for real, and neither the
// service's answers nor its output ever showed the credentials or the session.
it("ran docs/auth-profiles.md's profile against the login fixture: a real login, no credential or session shown", async () => {
  expect(runnable.some((e) => e.file === 'docs/auth-profiles.md' && e.code.includes('"login"'))).toBe(true);
  expect(login.stats.logins).toBeGreaterThanOrEqual(1);
  const listed = await fetch(`${service.url}/api/v1/auth-profiles`, { headers: { authorization: `Bearer ${service.key}` } });
  const text = await listed.text();
  expect(JSON.parse(text).auth_profiles.map((p: { session: { state: string } }) => p.session.state)).toContain('active');
  const shown = new RegExp([DOC_LOGIN.password, ...login.sessions].map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
  expect(text).not.toMatch(shown);
  expect(service.output()).not.toMatch(shown);
});

// After the examples: the service has extracted, crawled, scraped and sent webhooks, so its /metrics has series.
docsNamesSuite(() => ({ url: service.url, key: service.key }));
