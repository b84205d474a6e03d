/**
 * `describeWith(['redis'], ...)` runs the suite against the servers global setup started. A server
 * that is missing fails the suite: a run is never green with parts of it skipped.
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
  describe(title, () => {
    it(`needs ${missing.join(', ')}`, () => {
      throw new Error(`missing test server(s): ${missing.join(', ')} (npm test starts them; see test/harness/install-system-deps.sh)`);
    });
  });
}

/** A database name unique to this test file, so suites sharing one server never see each other's data. */
export function uniqueDbName(prefix = 'gleaner_test'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
