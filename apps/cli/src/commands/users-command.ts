import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, UsersService } from '@app/auth';
import { loadConfigOrReport } from '@app/config';
import { createLogger, Metrics } from '@app/observability';
import { openPorts, PlatformModule } from '@app/platform';
import { parseFlags } from '../arg-parser';
import { EXIT_FAILURE, EXIT_OK, UsageError, type CliCommand, type CliIo } from '../command';

const USAGE = `Usage: gleaner users create --name NAME [--admin]
       gleaner users list

Operator commands on the configured store (DATA_DIR, or MONGODB_URI + REDIS_URL in cluster mode).
\`create\` makes a user (tenant) and its first full-access API key and prints the key once.`;

/** Boots only the platform and auth modules (no HTTP server) against the configured store. */
async function withUsers<T>(io: CliIo, work: (users: UsersService) => Promise<T>): Promise<T | null> {
  const config = loadConfigOrReport(process.env, 'all', io.stderr);
  if (!config) return null;
  const logger = createLogger({ level: 'warn', name: 'gleaner-cli', destination: io.stderr });
  const ports = await openPorts(config);
  @Module({ imports: [PlatformModule.forRoot(config, ports, logger, new Metrics('cli')), AuthModule] })
  class UsersCliModule {}
  const app = await NestFactory.createApplicationContext(UsersCliModule, { logger: false });
  try {
    return await work(app.get(UsersService));
  } finally {
    await app.close();
  }
}

export const usersCommand: CliCommand = {
  name: 'users',
  summary: 'create or list users (tenants) directly in the store',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const [sub, ...rest] = args;
    if (sub === 'create') {
      const flags = parseFlags(rest, { name: { type: 'string' }, admin: { type: 'boolean' } });
      const name = typeof flags.name === 'string' ? flags.name.trim() : '';
      if (!name || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
      const created = await withUsers(io, (users) => users.createUser(name, flags.admin === true));
      if (!created) return EXIT_FAILURE;
      io.stdout.write(`${JSON.stringify(created)}\n`);
      return EXIT_OK;
    }
    if (sub === 'list') {
      parseFlags(rest, {});
      const listed = await withUsers(io, (users) => users.listAll());
      if (!listed) return EXIT_FAILURE;
      for (const user of listed.users) io.stdout.write(`${JSON.stringify(user)}\n`);
      return EXIT_OK;
    }
    throw new UsageError(sub ? `unknown users subcommand "${sub}"` : 'a users subcommand is required (create, list)');
  },
};
