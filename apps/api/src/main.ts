import { EXIT_CONFIG, loadConfigOrReport, type Role } from '@app/config';
import { installShutdown } from '@app/platform';
import type { AppExtensions } from '@app/worker';
import { createApiApp } from './create-app';
import { startupNote } from './startup-note';

/**
 * `node main.js` runs embedded (API + crawler); `--role=api` runs the cluster API role. `extensions`
 * only from the test apps (test/test-app), which start the built app through this function.
 */
export async function main(extensions?: AppExtensions): Promise<void> {
  const role: Role = process.argv.includes('--role=api') ? 'api' : 'all';
  const config = loadConfigOrReport(process.env, role, process.stderr);
  if (!config) process.exit(EXIT_CONFIG);
  const { app, logger, bootstrap, generateAdminKey } = await createApiApp(config, { extensions });
  await app.listen({ port: config.port, host: config.host });
  logger.info({ port: config.port, deployment: config.deployment, role }, 'Gleaner API listening');
  // A generated key only now that the service listens (a start that fails before it would lose the key), and
  // only embedded: a cluster role's output goes to shared logs (docs/operations-deploy.md "The admin key").
  const outcome = bootstrap.kind === 'none' && role === 'all' ? await generateAdminKey() : bootstrap;
  process.stdout.write(startupNote(outcome, role, config.port));
  installShutdown(app, logger);
}

if (require.main === module) void main();
