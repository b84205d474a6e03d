/**
 * Runs one document example in bash, the way a reader's terminal would, with `curl` and `gleaner` replaced
 * by wrappers that refuse any non-loopback address, run the real program and record what it answered (HTTP
 * status and body, exit code, output) for the checks of docs/contributing.md "Executable documents".
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expectationOf, mismatches, programsOf, splitCommands, type CheckedProgram, type DocExample } from './doc-examples';
import { isSetupCommand, LOGIN_EXAMPLE_HOST, nonLoopbackAddresses, rewriteExample, type RewriteTargets } from './doc-rewrite';

export interface RunnerSetup extends RewriteTargets {
  /** The node binary that runs the CLI and its built entry point (dist/apps/cli/src/main.js). */
  node: string;
  cliMain: string;
}

/** One run of a watched program, as its wrapper recorded it. */
interface ProgramRun {
  program: CheckedProgram;
  line: number;
  startedAt: bigint;
  args: string[];
  exit: number;
  /** curl: the last HTTP status of the answer (redirects followed by curl show several). */
  status?: number;
  stdout: string;
  stderr: string;
}

export interface ExampleOutcome {
  /** What does not hold; empty when the example ran as documented. */
  problems: string[];
  /** The shell's output, for the failure message. */
  transcript: string;
}

const LOOPBACK_CHECK = `
refuse_non_loopback() {
  for arg in "$@"; do
    if [[ "$arg" =~ ^[A-Za-z][A-Za-z0-9+.-]*://(\\[[^]]*\\]|[^/:?#]+) ]]; then
      host="\${BASH_REMATCH[1],,}"
      if [[ "$host" != "127.0.0.1" && "$host" != "localhost" && "$host" != "[::1]" && " $RESOLVED_LOOPBACK " != *" $host "* ]]; then
        echo "docs harness: refused a non-loopback address: $arg" >&2; exit 97
      fi
    elif [[ "$arg" =~ ^(([A-Za-z0-9-]+\\.)+[A-Za-z]{2,})(:[0-9]+)?/ && " $RESOLVED_LOOPBACK " != *" \${BASH_REMATCH[1],,} "* ]]; then
      echo "docs harness: refused a non-loopback address: $arg" >&2; exit 97
    fi
  done
}
record() {
  rec=$(mktemp -d "$DOC_RUN_DIR/run.XXXXXX")
  date +%s%N > "$rec/started"
  echo "$1" > "$rec/program"
  echo "\${DOC_LINE:-0}" > "$rec/line"
  shift
  printf '%s\\0' "$@" > "$rec/args"
}
`;

/** Writes the `curl` and `gleaner` wrappers into a fresh directory that goes first on PATH. */
export function makeWrappers(setup: RunnerSetup): string {
  const realCurl = spawnSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
  if (!realCurl) throw new Error('curl is not installed: the document examples need it (test/harness/install-system-deps.sh installs it)');
  const bin = mkdtempSync(join(tmpdir(), 'gleaner-docs-bin-'));
  const write = (name: string, body: string): void => {
    // Names the service resolves to loopback itself (the login fixture's) pass the check too.
    const resolved = `RESOLVED_LOOPBACK=${JSON.stringify(setup.loginSiteUrl ? LOGIN_EXAMPLE_HOST : '')}`;
    writeFileSync(
      join(bin, name),
      `#!/usr/bin/env bash\n# Written by test/docs/example-runner.ts\n${resolved}\n${LOOPBACK_CHECK}\n${body}`,
    );
    chmodSync(join(bin, name), 0o755);
  };
  write(
    'curl',
    `refuse_non_loopback "$@"
record curl "$@"
${JSON.stringify(realCurl)} -sS --max-time 300 -D "$rec/headers" "$@" 2> "$rec/stderr" | tee "$rec/stdout"
code=\${PIPESTATUS[0]}
cat "$rec/stderr" >&2
echo "$code" > "$rec/exit"
exit "$code"
`,
  );
  write(
    'gleaner',
    `refuse_non_loopback "$@"
record gleaner "$@"
${JSON.stringify(setup.node)} ${JSON.stringify(setup.cliMain)} "$@" 2> "$rec/stderr" | tee "$rec/stdout"
code=\${PIPESTATUS[0]}
cat "$rec/stderr" >&2
echo "$code" > "$rec/exit"
exit "$code"
`,
  );
  return bin;
}

/** The shell script of an example: rewritten, setup commands left out, each command tagged with its line. */
export function scriptOf(example: DocExample, targets: RewriteTargets): { script: string; commands: ReturnType<typeof splitCommands> } {
  const code = rewriteExample(example.code, targets);
  const commands = splitCommands(code);
  const lines = ['set -o pipefail'];
  for (const command of commands) {
    if (isSetupCommand(command.text)) continue;
    lines.push(`export DOC_LINE=${command.line}; ${command.text}`);
  }
  return { script: `${lines.join('\n')}\n`, commands };
}

export async function runExample(example: DocExample, setup: RunnerSetup, bin: string): Promise<ExampleOutcome> {
  const { script, commands } = scriptOf(example, setup);
  const refused = nonLoopbackAddresses(script, setup.loginSiteUrl ? [LOGIN_EXAMPLE_HOST] : []);
  if (refused.length > 0) {
    return { problems: [`not run: addresses left after rewriting that are not loopback: ${refused.join(', ')}`], transcript: script };
  }
  const cwd = mkdtempSync(join(tmpdir(), 'gleaner-docs-run-'));
  const runDir = join(cwd, '.doc-runs');
  mkdirSync(runDir);
  const shell = await runBash(script, cwd, {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: cwd,
    NO_COLOR: '1',
    DOC_RUN_DIR: runDir,
    KEY: setup.key,
    GLEANER_URL: setup.serviceUrl,
    GLEANER_API_KEY: setup.key,
    GLEANER_MODEL_API_KEY: 'sk-docs-examples',
  });
  const runs = readRuns(runDir);
  const problems: string[] = [];
  if (/command not found|No such file or directory/.test(shell.stderr)) problems.push(`the shell failed: ${shell.stderr.trim()}`);
  for (const command of commands) {
    if (isSetupCommand(command.text)) continue;
    const expected = programsOf(command.text);
    const ran = runs.filter((run) => run.line === command.line);
    const where = `line ${example.line + command.line} \`${command.text.slice(0, 70)}${command.text.length > 70 ? '…' : ''}\``;
    if (ran.length !== expected.length) {
      problems.push(
        `${where}: expected ${expected.join(', ') || 'no watched program'} to run, ran ${ran.map((r) => r.program).join(', ') || 'nothing'}`,
      );
      continue;
    }
    const expectation = expectationOf(command.comment);
    ran.forEach((run, index) => {
      // The comment describes the last program of the command (`a | b  # what b answers`).
      const own = index === ran.length - 1 ? expectation : { fields: [] };
      problems.push(...checkRun(run, own, cwd).map((p) => `${where}: ${p}`));
    });
  }
  return { problems, transcript: `$ bash <<'EOF'\n${script}EOF\n${shell.stdout}${shell.stderr}` };
}

function checkRun(run: ProgramRun, expectation: ReturnType<typeof expectationOf>, cwd: string): string[] {
  const problems: string[] = [];
  if (run.program === 'curl') {
    if (run.exit !== 0) return [`curl exited ${run.exit}: ${run.stderr || 'no answer'}`];
    const status = run.status ?? 0;
    if (expectation.status !== undefined ? status !== expectation.status : status < 200 || status > 299) {
      problems.push(`answered ${status} (expected ${expectation.status ?? '2xx'}): ${run.stdout.slice(0, 300)}`);
    }
    if (expectation.fields.length > 0) {
      let body: unknown;
      try {
        body = JSON.parse(run.stdout);
      } catch {
        return [...problems, `the answer is not JSON: ${run.stdout.slice(0, 200)}`];
      }
      problems.push(...mismatches(body, expectation.fields));
    }
    return problems;
  }
  const exit = expectation.exit ?? 0;
  if (run.exit !== exit) problems.push(`exited ${run.exit} (expected ${exit}): ${run.stderr.trim().slice(0, 500)}`);
  if (/\n\s+at .+\(.+:\d+:\d+\)/.test(run.stderr)) problems.push(`printed a stack trace: ${run.stderr}`);
  const output = outputFileOf(run.args);
  if (exit === 0 && output !== undefined) {
    const path = resolve(cwd, output);
    if (!existsSync(path) || statSync(path).size === 0) problems.push(`wrote nothing to ${output}`);
  }
  return problems;
}

function outputFileOf(args: string[]): string | undefined {
  const index = args.findIndex((a) => a === '-o' || a === '--output');
  return index >= 0 ? args[index + 1] : undefined;
}

function readRuns(runDir: string): ProgramRun[] {
  const read = (dir: string, name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  return readdirSync(runDir)
    .map((name) => join(runDir, name))
    .map((dir): ProgramRun => {
      const statuses = [...read(dir, 'headers').matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((m) => Number(m[1]));
      return {
        program: read(dir, 'program').trim() as CheckedProgram,
        line: Number(read(dir, 'line').trim()),
        startedAt: BigInt(read(dir, 'started').trim() || '0'),
        args: read(dir, 'args').split('\0').slice(0, -1),
        exit: Number(read(dir, 'exit').trim() || '-1'),
        status: statuses.at(-1),
        stdout: read(dir, 'stdout'),
        stderr: read(dir, 'stderr'),
      };
    })
    .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
}

function runBash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A generous deadline against a hung example, never a timing assertion.
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}
