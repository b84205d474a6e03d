import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthModule, UsersService } from '@app/auth';
import { loadConfigOrReport } from '@app/config';
import { createLogger, Metrics } from '@app/observability';
import { openPorts, PlatformModule } from '@app/platform';
import { parseFlags, type ParsedFlags } from '../arg-parser';
import { EXIT_FAILURE, EXIT_OK, UsageError, type CliCommand, type CliIo } from '../command';

const USAGE = `Usage: gleaner users create --name NAME [--admin] [--data-dir DIR]
       gleaner users list [--data-dir DIR]
       gleaner users delete ID --yes

Operator commands on the configured store (DATA_DIR, or MONGODB_URI + REDIS_URL in cluster mode).
\`create\` makes a user (tenant) and its first full-access API key and prints the key once.
\`list\` prints one JSON line per user, with its status (active, or deleting while its deletion runs).
Embedded, the store must already be in DATA_DIR (default ./data, from where you run it): run it where the
service runs, or set DATA_DIR. --data-dir DIR uses DIR and may start a new store there.
\`delete\` goes through the running service instead (GLEANER_URL, an admin GLEANER_API_KEY): it deletes
the user and everything it owns in every store; see \`gleaner users delete --help\`.`;

/** The embedded store's file in a data directory (libs/platform opens it there). */
const STORE_FILE = 'gleaner.db';

/** Boots only the platform and auth modules (no HTTP server) against the configured store. */
async function withUsers<T>(io: CliIo, dataDir: string | undefined, work: (users: UsersService) => Promise<T>): Promise<T | null> {
  // A user made in a new, empty store (`gleaner users` run from another folder) would be lost to the service.
  // Checked before the configuration is read: reading it makes the embedded secret in DATA_DIR.
  const embedded = !(process.env.MONGODB_URI && process.env.REDIS_URL);
  const configured = resolve(process.env.DATA_DIR ?? './data');
  if (embedded && dataDir === undefined && !existsSync(join(configured, STORE_FILE))) {
    io.stderr.write(
      `gleaner users: no Gleaner store in ${configured} (DATA_DIR${process.env.DATA_DIR ? '' : ', default ./data'}): ` +
        'run it where the service keeps its data, set DATA_DIR to that directory, or pass --data-dir DIR to start a new store there.\n',
    );
    return null;
  }
  const config = loadConfigOrReport(dataDir === undefined ? process.env : { ...process.env, DATA_DIR: dataDir }, 'all', io.stderr);
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
      const flags = parseFlags(rest, { name: { type: 'string' }, admin: { type: 'boolean' }, 'data-dir': { type: 'string' } });
      const name = typeof flags.name === 'string' ? flags.name.trim() : '';
      if (!name || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
      const created = await withUsers(io, dataDirOf(flags), (users) => users.createUser(name, flags.admin === true));
      if (!created) return EXIT_FAILURE;
      io.stdout.write(`${JSON.stringify(created)}\n`);
      return EXIT_OK;
    }
    if (sub === 'list') {
      const flags = parseFlags(rest, { 'data-dir': { type: 'string' } });
      const listed = await withUsers(io, dataDirOf(flags), (users) => users.listAll());
      if (!listed) return EXIT_FAILURE;
      for (const user of listed.users) io.stdout.write(`${JSON.stringify(user)}\n`);
      return EXIT_OK;
    }
    throw new UsageError(sub ? `unknown users subcommand "${sub}"` : 'a users subcommand is required (create, list, delete)');
  },
};

function dataDirOf(flags: ParsedFlags): string | undefined {
  return typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined;
}
