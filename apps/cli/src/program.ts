import type { Command, CommanderError, Option } from 'commander';
import { FETCH_MODES } from '@app/fetch';
import { CommandRegistry } from './command-registry';
import type { CliCommand, CliIo } from './command';
import { registerBatch } from './commands/batch-command';
import { registerReextract } from './commands/reextract-command';
import { registerMap } from './commands/map-command';
import { registerMonitors } from './commands/monitors-command';
import { registerAuthProfiles } from './commands/auth-profiles-command';
import { registerMcp } from './commands/mcp-command';
import { registerCrawl } from './commands/crawl-command';
import { registerExtract } from './commands/extract-command';
import { registerJobs } from './commands/jobs-command';
import { registerResults } from './commands/results-command';
import { registerScrape } from './commands/scrape-command';
import { registerUsersDelete } from './commands/users-delete-command';
import { CliContext, cliVersion, DEFAULT_URL, type ApiIo, type GlobalOptions } from './context';
import { ApiError, CliError, describeProblem, InterruptedError } from './errors';
import { EXIT, type ExitCode } from './exit-codes';
import { SignalHub } from './follow/signals';
import { EXTRACTION_MODES, GROUNDING_POLICIES, intParser, PROVENANCE_MODES } from './request-options';
import { colorsFor } from './util/colors';
import { loadCommander } from './util/esm';

/** Helpers the command modules use to declare their options and actions alike. */
export interface CommandKit {
  action<O>(run: (ctx: CliContext, args: Array<string | undefined>, opts: O) => Promise<ExitCode>): (...args: unknown[]) => Promise<void>;
  addSchemaOptions(command: Command): void;
  addModelOptions(command: Command): void;
  fetchModeOption(): Option;
  extractionModeOption(): Option;
  /** `--provenance` and `--grounding` (docs/provenance.md). */
  addProvenanceOptions(command: Command): void;
  /**
   * What a command that follows its job to the end takes: `-o/--output`, `--detach` (unless the job is
   * already running, as for `jobs watch`) and `--reconnect-timeout`.
   */
  addFollowOptions(command: Command, options?: { detach?: boolean }): void;
  /** `--flag <value>` restricted to `choices`, with a default. */
  choiceOption(flags: string, description: string, choices: readonly string[], defaultValue?: string): Option;
}

interface LocalCommand {
  name: string;
  summary: string;
  load(): Promise<CliCommand>;
  /** Subcommands that go to the service instead (commander, API exit codes), added to the command here. */
  remote?: { subcommands: string[]; register(command: Command, kit: CommandKit): void };
}

/**
 * `convert` and `users` work on this machine (no service) and keep their own parser and exit codes
 * (64 for a usage error). Loaded only when run: they bring the content pool and NestJS.
 */
const LOCAL_COMMANDS: LocalCommand[] = [
  {
    name: 'convert',
    summary: 'HTML → markdown for JSON lines on stdin (full page or main content)',
    load: async () => (await import('./commands/convert-command.js')).convertCommand,
  },
  {
    name: 'users',
    summary: 'create or list users (tenants) directly in the store; delete one through the service',
    load: async () => (await import('./commands/users-command.js')).usersCommand,
    remote: { subcommands: ['delete'], register: registerUsersDelete },
  },
];

async function runLocal(local: LocalCommand, argv: string[], io: CliIo): Promise<number> {
  return new CommandRegistry().register(await local.load()).run(argv, io);
}

export const PROGRAM_HELP = `
Environment:
  GLEANER_URL             the service (default ${DEFAULT_URL}); --url wins
  GLEANER_API_KEY         your API key (glk_…); --key wins (prefer the variable:
                          options show in ps)
  GLEANER_MODEL_API_KEY   provider key sent with --model (BYOK, this request only)
  GLEANER_MODEL_BASE_URL  provider endpoint sent with --model (e.g. Ollama)
  NO_COLOR                no colours (also --no-color)

Exit codes:
  0    done (a followed job completed)
  1    the job failed or was cancelled (also a page the job could not fetch or
       extract: the site's 404 or 502), or the service refused (404, 409, 5xx)
  2    usage error, or a request the service rejected as invalid (400, 422)
  3    service unreachable (no answer, or a 502/503 naming no job: a proxy in
       front of it), or the key refused (401, 403)
  130  interrupted (Ctrl-C)

Examples:
  $ export GLEANER_URL=http://localhost:8080 GLEANER_API_KEY=glk_…
  $ gleaner scrape https://quotes.toscrape.com/ > quotes.md
  $ gleaner extract https://quotes.toscrape.com/ --schema quotes.yaml
  $ gleaner crawl https://quotes.toscrape.com/ --schema quotes.yaml \\
      --max-pages 20 --follow '/page/\\d+/$' -o quotes.jsonl
  $ gleaner jobs list
  $ gleaner results 01JD0000000000000000000000 --format yaml --merge`;

/**
 * Runs `gleaner <argv>` and resolves to the exit code. Never throws: every error is printed as a
 * message (problem+json title, detail and field errors for the service's), never a stack trace.
 */
export async function runCli(argv: string[], io: CliIo & ApiIo, env: NodeJS.ProcessEnv, signals: SignalHub): Promise<number> {
  const local = LOCAL_COMMANDS.find(
    (c) => (c.name === argv[0] && !c.remote?.subcommands.includes(argv[1])) || (argv[0] === 'help' && c.name === argv[1]),
  );
  if (local) return runLocal(local, argv, io);

  const errColors = colorsFor(io.stderr, env, !argv.includes('--no-color'));
  const jsonErrors = argv.includes('--json');
  const interrupt = new AbortController();
  const popDefault = signals.push(() => interrupt.abort(new InterruptedError()));
  let exitCode: number = EXIT.ok;
  try {
    const program = await buildProgram(io, env, signals, interrupt.signal, (code) => (exitCode = code), jsonErrors);
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return report(error, io, errColors, jsonErrors);
  } finally {
    popDefault();
  }
}

async function buildProgram(
  io: ApiIo,
  env: NodeJS.ProcessEnv,
  signals: SignalHub,
  signal: AbortSignal,
  setExit: (code: ExitCode) => void,
  jsonErrors: boolean,
): Promise<Command> {
  const { Command, Option } = await loadCommander();
  const errColors = colorsFor(io.stderr, env, true);
  const program = new Command('gleaner')
    .description('Drive a Gleaner service from the terminal: scrape, extract, crawl, follow jobs, fetch results.')
    .version(cliVersion(), '-V, --version')
    .option('--url <url>', `the service (env GLEANER_URL, default ${DEFAULT_URL})`)
    .option('--key <key>', 'API key (env GLEANER_API_KEY)')
    .option('--json', 'machine-readable output on stdout (and errors as JSON on stderr)')
    .option('-q, --quiet', 'no progress display and no notices')
    .option('--no-color', 'no colours (NO_COLOR is respected too)')
    .showHelpAfterError(jsonErrors ? false : errColors.dim('(add --help for usage)'))
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // With --json a usage error is one JSON line too, like every other error (apps/cli/README.md "--json").
      outputError: (text, write) => write(jsonErrors ? `${JSON.stringify({ error: usageProblem(text) })}\n` : errColors.red(text)),
    })
    .addHelpText('after', PROGRAM_HELP);

  const kit: CommandKit = {
    action:
      <O>(run: (ctx: CliContext, args: Array<string | undefined>, opts: O) => Promise<ExitCode>) =>
      async (...args: unknown[]) => {
        const command = args.at(-1) as Command;
        const opts = command.optsWithGlobals<O & GlobalOptions>();
        const ctx = new CliContext(io, env, opts, signals, signal);
        setExit(await run(ctx, command.processedArgs as Array<string | undefined>, opts));
      },
    addSchemaOptions: (command) =>
      command
        .option('--schema <file|json|yaml>', 'what to extract: a file (JSON or YAML), "-" for stdin, or the schema inline')
        .option('--schema-id <id>', 'a saved schema instead of --schema')
        .option('--site-id <id>', 'a saved site: its URL, fetch mode, default schema and options as defaults'),
    addModelOptions: (command) =>
      command
        .option('--model <provider/model>', 'model for this request, e.g. openai/gpt-4o-mini (default: your stored chain)')
        .option('--model-key <key>', 'provider key for this request only (env GLEANER_MODEL_API_KEY)')
        .option('--model-base-url <url>', 'provider endpoint (env GLEANER_MODEL_BASE_URL)'),
    addFollowOptions: (command, { detach = true } = {}) => {
      command.option('-o, --output <file>', 'write result lines (JSON lines) to this file; the summary goes to stdout');
      if (detach) command.option('--detach', 'print the job id and return at once (follow later with "gleaner jobs watch")');
      command.option(
        '--reconnect-timeout <seconds>',
        'give up when the service stays unreachable this long',
        intParser('--reconnect-timeout', 1),
        300,
      );
    },
    fetchModeOption: () => new Option('--fetch-mode <mode>', 'how pages are fetched (service default auto)').choices(FETCH_MODES),
    choiceOption: (flags, description, choices, defaultValue) => {
      const option = new Option(flags, description).choices(choices);
      return defaultValue === undefined ? option : option.default(defaultValue);
    },
    extractionModeOption: () =>
      new Option(
        '--extraction-mode <mode>',
        'model: a model call per page (default); auto: verified learned selectors where a template allows',
      ).choices(EXTRACTION_MODES),
    addProvenanceOptions: (command) =>
      command
        .addOption(
          new Option(
            '--provenance <mode>',
            'per value: where it came from and whether it is on the page (service default summary)',
          ).choices(PROVENANCE_MODES),
        )
        .addOption(
          new Option('--grounding <policy>', 'what a value not on the page does (service default report)').choices(GROUNDING_POLICIES),
        ),
  };

  registerScrape(program, kit);
  registerExtract(program, kit);
  registerCrawl(program, kit);
  registerBatch(program, kit);
  registerReextract(program, kit);
  registerMap(program, kit);
  registerJobs(program, kit);
  registerMonitors(program, kit);
  registerAuthProfiles(program, kit);
  registerResults(program, kit);
  registerMcp(program, kit);

  // Listed in the help; `runCli` hands them their arguments before commander sees them.
  for (const local of LOCAL_COMMANDS) {
    const command = program
      .command(local.name)
      .summary(local.remote ? local.summary : `${local.summary} (local: no service)`)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_opts: unknown, command: Command) => setExit((await runLocal(local, [local.name, ...command.args], io)) as ExitCode));
    local.remote?.register(command, kit);
  }
  return program;
}

/** Prints an error the way people (or, with --json, scripts) read it; returns the exit code. */
function report(error: unknown, io: ApiIo, colors: ReturnType<typeof colorsFor>, json: boolean): number {
  if (isCommanderError(error)) {
    // Commander printed its message (or the help) already.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
    return EXIT.usage;
  }
  if (error instanceof ApiError) {
    if (json) io.stderr.write(`${JSON.stringify({ error: { status: error.status, ...error.problem } })}\n`);
    else {
      const [first, ...rest] = describeProblem(error.problem, error.status);
      const lines = [`${colors.red('error:')} ${first}`, ...rest];
      if (error.status === 401) lines.push(colors.dim('  (set GLEANER_API_KEY or --key to a valid API key)'));
      if (error.problem.instance) lines.push(colors.dim(`  request ${error.problem.instance}`));
      io.stderr.write(`${lines.join('\n')}\n`);
    }
    return error.exitCode;
  }
  if (error instanceof CliError) {
    if (error.message) {
      if (json) io.stderr.write(`${JSON.stringify({ error: { title: error.name, detail: error.message } })}\n`);
      else
        io.stderr.write(
          error instanceof InterruptedError ? `${colors.yellow(error.message)}\n` : `${colors.red('error:')} ${error.message}\n`,
        );
    }
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) io.stderr.write(`${JSON.stringify({ error: { title: 'Error', detail: message } })}\n`);
  else io.stderr.write(`${colors.red('error:')} ${message}\n`);
  if (process.env.GLEANER_CLI_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.failed;
}

/** A commander message (`error: unknown option '--bogus'\n(Did you mean --max-pages?)`) as problem fields. */
function usageProblem(text: string): { title: string; detail: string } {
  return {
    title: 'Usage error',
    detail: text
      .replace(/^error:\s*/, '')
      .replace(/\s+/g, ' ')
      .trim(),
  };
}

function isCommanderError(error: unknown): error is CommanderError {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}
