import { EXIT_CONFIG, loadConfigOrReport, type Role } from '@app/config';
import { installShutdown } from '@app/platform';
import type { AppExtensions } from '@app/worker';
import { createApiApp } from './create-app';

/**
 * `node main.js` runs embedded (API + crawler); `--role=api` runs the cluster API role. `extensions`
 * only from the test apps (test/test-app), which start the built app through this function.
 */
export async function main(extensions?: AppExtensions): Promise<void> {
  const role: Role = process.argv.includes('--role=api') ? 'api' : 'all';
  const config = loadConfigOrReport(process.env, role, process.stderr);
  if (!config) process.exit(EXIT_CONFIG);
  const { app, logger, bootstrap } = await createApiApp(config, { extensions });
  await app.listen({ port: config.port, host: config.host });
  logger.info({ port: config.port, deployment: config.deployment, role }, 'Gleaner API listening');
  if (bootstrap?.generated) {
    // Printed once, outside the JSON log, so it can be copied; never logged.
    process.stdout.write(
      `\n  Gleaner admin API key (generated; store it now, it will not be shown again):\n\n    ${bootstrap.secret}\n\n` +
        `  Try: curl -H "Authorization: Bearer ${bootstrap.secret}" http://localhost:${config.port}/api/v1/jobs\n\n`,
    );
  } else if (bootstrap) {
    process.stdout.write(`\n  Gleaner admin API key created from GLEANER_BOOTSTRAP_KEY (${bootstrap.secret.slice(0, 12)}...).\n\n`);
  }
  installShutdown(app, logger);
}

if (require.main === module) void main();
