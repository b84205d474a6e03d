import { SignalHub } from './follow/signals';
import { runCli } from './program';

/**
 * `gleaner <command>`: the API commands (extract, crawl, jobs, results, crawl-map) talk to a
 * running service over its public HTTP API; `convert` and `users` work locally. See apps/cli/README.md.
 */
export async function main(): Promise<void> {
  const signals = new SignalHub();
  process.on('SIGINT', () => signals.fire());
  // A reader that went away (`gleaner jobs list | head -1`) is not an error: stop quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && stream !== process.stderr) process.stderr.write(`gleaner: cannot write output: ${error.message}\n`);
      process.exit(error.code === 'EPIPE' ? (process.exitCode ?? 0) : 1);
    });
  }
  const code = await runCli(
    process.argv.slice(2),
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    process.env,
    signals,
  );
  process.exitCode = code;
  // Nothing should be left running; if a library left a handle open, do not hang on it.
  setTimeout(() => process.exit(code), 1000).unref();
}
