import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@app/config';
import { createApiApp } from '../../apps/api/src/create-app';
import { testAppExtensions } from '../test-app/test-app';
import { LogCapture, tempDir } from './helpers';

export interface RunningApp {
  app: NestFastifyApplication;
  baseUrl: string;
  adminKey: string;
  logs: LogCapture;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts the embedded deployment (the test app: test jobs, content crash hooks) in this process, listening on a free 127.0.0.1 port. */
export async function startEmbedded(env: Record<string, string> = {}): Promise<RunningApp> {
  const dataDir = env.DATA_DIR ?? tempDir();
  const config = loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }, 'all');
  const logs = new LogCapture();
  const { app, bootstrap, generateAdminKey } = await createApiApp(config, { destination: logs, extensions: testAppExtensions() });
  await app.listen({ port: 0, host: '127.0.0.1' });
  // As main does: a generated admin key once the app listens, when no GLEANER_BOOTSTRAP_KEY made one.
  const outcome = bootstrap.kind === 'none' ? await generateAdminKey() : bootstrap;
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    adminKey: outcome.kind === 'generated' ? outcome.secret : (env.GLEANER_BOOTSTRAP_KEY ?? ''),
    logs,
    dataDir,
    close: () => app.close(),
  };
}
