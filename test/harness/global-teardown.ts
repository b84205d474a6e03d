export default async function globalTeardown(): Promise<void> {
  for (const server of globalThis.__gleanerTestServers ?? []) await server.stop();
}
