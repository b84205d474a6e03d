/**
 * What a person sees when `gleaner crawl` runs in a real terminal (tmux, 100×30): one progress line,
 * redrawn in place while the crawl runs, then the summary; colours unless NO_COLOR.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startFixtureSite, type FixtureSite } from '../fixtures/site';
import { assertCliBuilt, CLI_MAIN, jsonLines } from './cli-helpers/cli';
import { apiGet, startService, type Service } from './cli-helpers/service';
import { requireTerminalTools, Terminal } from './cli-helpers/terminal';
import { tempDir, waitFor } from './helpers';

jest.setTimeout(240_000);

const PROGRESS = /(crawling|pending|completed) · .*\d+ done \/ \d+ discovered · \d+ failed/;
const ESC = '\x1b';

let site: FixtureSite;
let models: ModelServer;
let service: Service;
let tools: { tmux: string; script: string };
const terminals: Terminal[] = [];

beforeAll(async () => {
  assertCliBuilt();
  tools = requireTerminalTools();
  [site, models] = await Promise.all([startFixtureSite(), startModelServer()]);
  service = await startService();
});

afterAll(async () => {
  for (const terminal of terminals) terminal.close();
  await service?.stop();
  await Promise.all([site?.close(), models?.close()]);
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GLEANER_URL: service.url,
    GLEANER_API_KEY: service.key,
    GLEANER_MODEL_BASE_URL: models.openaiBaseUrl,
    GLEANER_MODEL_API_KEY: 'sk-cli-test',
    ...extra,
  };
}

/** Runs the CLI in a fresh terminal; `watch` is called with the screen (and the terminal) while it runs. */
async function inTerminal(
  args: string[],
  extraEnv: Record<string, string>,
  watch?: (screen: string, terminal: Terminal) => void,
): Promise<{ terminal: Terminal; screen: string; code: number }> {
  const terminal = new Terminal(tools);
  terminals.push(terminal);
  terminal.start([process.execPath, CLI_MAIN, ...args], env(extraEnv));
  const screen = await waitFor(
    async () => {
      const now = terminal.screen();
      watch?.(now, terminal);
      return /\[exit \d+\]/.test(now) ? now : null;
    },
    180_000,
    40,
  );
  // What the program left on the terminal: up to the exit line the pane script prints after it.
  const shown = screen.slice(0, screen.indexOf('[exit ')) + /\[exit \d+\]/.exec(screen)![0];
  return { terminal, screen: shown.replace(/\n{2,}/g, '\n'), code: Number(/\[exit (\d+)\]/.exec(screen)![1]) };
}

it('a crawl on a terminal: one progress line redrawn in place, then the summary', async () => {
  const out = join(tempDir('gleaner-cli-tty-out-'), 'quotes.jsonl');
  const progressFrames = new Set<string>();
  let mostProgressLinesAtOnce = 0;
  const args = ['crawl', `${site.url}/`, '--schema', '{"quotes": [{"text": "string", "author": "string"}]}', '--model', 'openai/slow-400'];
  args.push(
    '--fetch-mode',
    'static',
    '--max-pages',
    '6',
    '--max-depth',
    '2',
    '--follow',
    '/page/\\d+/$',
    '--ignore-robots',
    '--concurrency',
    '1',
  );
  args.push('--output', out);

  const { terminal, screen, code } = await inTerminal(args, {}, (now) => {
    const lines = now.split('\n').filter((l) => PROGRESS.test(l));
    mostProgressLinesAtOnce = Math.max(mostProgressLinesAtOnce, lines.length);
    for (const line of lines) progressFrames.add(/(\d+) done/.exec(line)![1]);
  });
  expect(code).toBe(0);

  // While it ran, the person saw the count go up, yet never more than one progress line on the screen.
  expect(progressFrames.size).toBeGreaterThanOrEqual(2);
  expect(mostProgressLinesAtOnce).toBe(1);

  // At the end, scrollback included: the start line, no progress line left behind, the summary.
  const jobId = /Crawl (\w{26}) started at/.exec(screen)![1];
  const lines = screen.split('\n');
  expect(lines.filter((l) => PROGRESS.test(l))).toEqual([]);
  expect(screen).toContain(`✔ Crawl ${jobId} completed in`);
  expect(screen).toMatch(/ {2}pages {5}6 done · 0 failed · \d+ skipped/);
  expect(screen).toContain(`results   6 lines in ${out}`);
  expect(lines).toEqual([
    `Crawl ${jobId} started at ${site.url}/ (Ctrl-C to cancel or detach)`,
    expect.stringMatching(new RegExp(`^✔ Crawl ${jobId} completed in `)),
    expect.stringMatching(/^ {2}pages /),
    '  failures  none',
    expect.stringMatching(/^ {2}tokens /),
    expect.stringMatching(/^ {2}cost /),
    `  results   6 lines in ${out}`,
    '[exit 0]',
  ]);
  expect(jsonLines(readFileSync(out, 'utf8'))).toHaveLength(6);

  // The bytes: many frames, each after the first drawn over the last with cursor control
  // (erase line, cursor up) rather than on a new line of its own; colours on a terminal.
  const raw = terminal.raw();
  const frames = raw.match(/\d+ done \/ \d+ discovered/g) ?? [];
  expect(frames.length).toBeGreaterThan(progressFrames.size);
  const redraws = raw.match(new RegExp(`${ESC}\\[2K${ESC}\\[1A`, 'g')) ?? [];
  expect(redraws.length).toBeGreaterThanOrEqual(frames.length - 1);
  expect(raw).toContain(`${ESC}[36m`); // cyan status word
  expect(raw).toContain(`${ESC}[?25l`); // the cursor is hidden while the line is live…
  expect(raw.lastIndexOf(`${ESC}[?25h`)).toBeGreaterThan(raw.lastIndexOf(`${ESC}[?25l`)); // …and shown again at the end
});

it('Ctrl-C on a terminal asks, and "c" + Enter cancels the crawl', async () => {
  const args = ['crawl', `${site.url}/`, '--schema', '{"quotes": [{"text": "string"}]}', '--model', 'openai/slow-1000'];
  args.push(
    '--fetch-mode',
    'static',
    '--max-pages',
    '30',
    '--max-depth',
    '2',
    '--ignore-robots',
    '--concurrency',
    '1',
    '--output',
    join(tempDir('gleaner-cli-tty-out-'), 'q.jsonl'),
  );
  let step: 'running' | 'asked' | 'answered' = 'running';
  const { screen, code } = await inTerminal(args, {}, (now, terminal) => {
    if (step === 'running' && PROGRESS.test(now)) {
      terminal.sendKeys('C-c');
      step = 'asked';
    } else if (step === 'asked' && /Choice \[c\/d\/W\]: *$/m.test(now)) {
      terminal.sendKeys('c', 'Enter');
      step = 'answered';
    }
  });
  expect(step).toBe('answered');
  expect(code).toBe(130);
  const jobId = /Crawl (\w{26}) started at/.exec(screen)![1];
  expect(screen).toContain(`The crawl ${jobId} is still running on the service.`);
  expect(screen).toContain(`cancel requested for ${jobId}`);
  expect(screen).toMatch(new RegExp(`■ Crawl ${jobId} cancelled in`));
  expect((await apiGet(service, `/api/v1/jobs/${jobId}`)).status).toBe('cancelled');
});

it('NO_COLOR: no colours on a terminal, the same text', async () => {
  const coloured = await inTerminal(['jobs', 'list', '--limit', '3'], {});
  const plain = await inTerminal(['jobs', 'list', '--limit', '3'], { NO_COLOR: '1' });
  expect(coloured.code).toBe(0);
  expect(plain.code).toBe(0);
  expect(coloured.terminal.raw()).toMatch(new RegExp(`${ESC}\\[(2|32|36)m`));
  expect(plain.terminal.raw()).not.toMatch(new RegExp(`${ESC}\\[\\d+m`));
  const table = (screen: string) => screen.split('\n').filter((l) => /^(ID|\w{26}) /.test(l));
  expect(table(plain.screen)).toEqual(table(coloured.screen));
  expect(table(plain.screen).length).toBeGreaterThanOrEqual(2);
});
