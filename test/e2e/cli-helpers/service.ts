/**
 * The embedded service as a built process (dist/apps/api/src/main.js) for the CLI tests, on a port
 * the test chooses so that it can be stopped and started again at the same address and DATA_DIR.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../harness/servers';
import { http, tempDir, waitFor } from '../helpers';
import { API_MAIN, assertBuilt, startProcess } from '../processes';

/** The admin key the service creates at first start (`glk_` + 40 letters and digits). */
export const CLI_TEST_KEY = `glk_${'CliTests42'.repeat(4)}`;

export interface Service {
  url: string;
  port: number;
  dataDir: string;
  key: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM (graceful: jobs in flight are handed back) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServiceOptions {
  port?: number;
  dataDir?: string;
  env?: Record<string, string>;
}

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  assertBuilt();
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? tempDir('gleaner-cli-e2e-');
  const proc = await startProcess(
    'service',
    API_MAIN,
    [],
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
      GLEANER_BROWSER_ENABLED: 'false',
      GLEANER_BOOTSTRAP_KEY: CLI_TEST_KEY,
      GLEANER_RATE_LIMIT_PER_MINUTE: '100000',
      ...options.env,
    },
    'PORT',
    { port },
  );
  return {
    url: proc.url,
    port,
    dataDir,
    key: CLI_TEST_KEY,
    child: proc.child,
    output: proc.output,
    stop: (signal) => proc.stop(signal),
  };
}

/** GET with the admin key, parsed. */
export async function apiGet(service: Service, path: string): Promise<any> {
  const res = await http(service.url, 'GET', path, { key: service.key });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return res.body ?? res.text;
}

/** The raw text of GET /jobs/{id}/results?format=jsonl. */
export async function resultsJsonl(service: Service, jobId: string): Promise<string> {
  const res = await http(service.url, 'GET', `/api/v1/jobs/${jobId}/results?format=jsonl`, { key: service.key });
  if (res.status !== 200) throw new Error(`results: ${res.status} ${res.text}`);
  return res.text;
}

/** Waits (generously) until the job is in one of the statuses, and returns it. */
export async function waitForJobStatus(service: Service, jobId: string, statuses: string[], timeoutMs = 120_000): Promise<any> {
  return waitFor(
    async () => {
      const job = await apiGet(service, `/api/v1/jobs/${jobId}`);
      return statuses.includes(job.status) ? job : null;
    },
    timeoutMs,
    100,
  );
}
