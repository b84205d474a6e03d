import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliCommand, type CliIo } from './command';

/** Subcommands by name; `gleaner help` and unknown names print the list. */
export class CommandRegistry {
  private readonly commands = new Map<string, CliCommand>();

  register(command: CliCommand): this {
    this.commands.set(command.name, command);
    return this;
  }

  async run(argv: string[], io: CliIo): Promise<number> {
    const [name, ...args] = argv;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const target = name === 'help' && args[0] ? this.commands.get(args[0]) : undefined;
      io.stdout.write(target ? `${target.usage}\n` : this.help());
      return name === undefined ? EXIT_USAGE : EXIT_OK;
    }
    const command = this.commands.get(name);
    if (!command) {
      io.stderr.write(`gleaner: unknown command "${name}"\n\n${this.help()}`);
      return EXIT_USAGE;
    }
    // `gleaner users --help`, `gleaner users create -h`: every command has --help (apps/cli/README.md).
    if (args.includes('--help') || args.includes('-h')) {
      io.stdout.write(`${command.usage}\n`);
      return EXIT_OK;
    }
    try {
      return await command.run(args, io);
    } catch (error) {
      if (error instanceof UsageError) {
        io.stderr.write(`gleaner ${name}: ${error.message}\n\n${command.usage}\n`);
        return EXIT_USAGE;
      }
      io.stderr.write(`gleaner ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_FAILURE;
    }
  }

  private help(): string {
    const lines = [...this.commands.values()].map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
    return `Usage: gleaner <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "gleaner help <command>" for its options.\n`;
  }
}
