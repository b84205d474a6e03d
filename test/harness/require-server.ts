/**
 * `describeWith(['redis'], ...)` runs the suite when the servers are available and otherwise skips
 * it with a loud message (global setup already failed the run under CI=true).
 */
export type ServerName = 'redis' | 'mongodb';

export function serverUrl(name: ServerName): string | undefined {
  return name === 'redis' ? process.env.TEST_REDIS_URL : process.env.TEST_MONGODB_URI;
}

export function describeWith(servers: ServerName[], title: string, body: () => void): void {
  const missing = servers.filter((s) => !serverUrl(s));
  if (missing.length === 0) {
    describe(title, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(title, () => {
      it(`needs ${missing.join(', ')}`, () => {
        throw new Error(`missing test server(s): ${missing.join(', ')}`);
      });
    });
    return;
  }
  console.warn(`!!! SKIPPING "${title}": no ${missing.join(', ')} server (${process.env.TEST_SERVERS_MISSING ?? ''})`);
  describe.skip(title, body);
}

/** A database name unique to this test file, so suites sharing one server never see each other's data. */
export function uniqueDbName(prefix = 'gleaner_test'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
