/** `gleaner convert`, the built command run the way a person's shell would (dist/apps/cli/src/main.js). */
import { assertCliBuilt, runCli as runBuiltCli, type CliResult } from './cli-helpers/cli';

const runCli = (args: string[], stdin: string) => runBuiltCli(args, {}, { stdin });

const lines = (run: CliResult) =>
  run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('gleaner convert (e2e)', () => {
  jest.setTimeout(60_000);
  beforeAll(() => assertCliBuilt());

  it('converts JSON lines in input order and reports bad lines without crashing', async () => {
    const input = [
      JSON.stringify({ id: 'a', url: 'https://cli.example/dir/', html: '<nav>menu</nav><h1>A</h1><p>Alpha</p>' }),
      'this is not json',
      JSON.stringify({ id: 'b', url: 'https://cli.example/', html: 42 }),
      '',
      JSON.stringify([1, 2]),
      JSON.stringify({
        id: 7,
        url: 'https://cli.example/',
        html: '<table><tr><th>k</th><th>v</th></tr><tr><td>isbn</td><td>978</td></tr></table>',
      }),
    ].join('\r\n');
    const run = await runCli(['convert', '--mode', 'full', '--jsonl', '--threads', '2'], input);
    expect(run.code).toBe(0);
    expect(lines(run)).toEqual([
      { id: 'a', text: '# A\n\nAlpha' },
      { id: null, line: 2, error: 'invalid JSON' },
      { id: 'b', error: 'html must be a string' },
      { id: null, line: 5, error: 'a line must be a JSON object {id, url, html}' },
      { id: 7, text: '| k | v |\n|---|---|\n| isbn | 978 |' },
    ]);
  });

  it('keeps order across many lines with bounded in-flight work (main mode)', async () => {
    const count = 300;
    const input = Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        id: i,
        url: 'https://cli.example/',
        // Uneven sizes so completions come back out of order.
        html: `<div class="menu"><a href="/">Home</a></div><article><p>${`Story ${i} sentence, with commas, and words. `.repeat(1 + (i % 7) * 20)}</p></article>`,
      }),
    ).join('\n');
    const run = await runCli(['convert', '--mode=main', '--jsonl', '--threads=2'], `${input}\n`);
    expect(run.code).toBe(0);
    const out = lines(run);
    expect(out).toHaveLength(count);
    out.forEach((line, i) => {
      expect(line.id).toBe(i);
      expect(line.text).toMatch(new RegExp(`^Story ${i} sentence`));
      expect(line.text).not.toContain('Home');
    });
  });

  it('exits 64 with usage on bad options; without a command (or an unknown one) lists the commands, exit 2', async () => {
    const bad = await runCli(['convert', '--mode', 'fancy', '--jsonl'], '');
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--mode must be one of full, main');
    const missing = await runCli(['convert', '--mode', 'full'], '');
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('--jsonl is required');
    const help = await runCli(['help', 'convert'], '');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: gleaner convert --mode full|main --jsonl');
    // The top level is the API commands' parser: usage errors there exit 2 (see apps/cli/README.md).
    const none = await runCli([], '');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('convert');
    const unknown = await runCli(['frobnicate'], '');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });
});
