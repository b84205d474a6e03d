#!/usr/bin/env node
import { CommandRegistry } from './command-registry';
import { convertCommand } from './commands/convert-command';
import { usersCommand } from './commands/users-command';

/** `gleaner <command>`: a small registry so further subcommands plug in without a CLI framework. */
export function createRegistry(): CommandRegistry {
  return new CommandRegistry().register(convertCommand).register(usersCommand);
}

async function main(): Promise<void> {
  const code = await createRegistry().run(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
  process.exitCode = code;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`gleaner: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
