/**
 * The stand-in model server of `npm run test:swarm` (test/fixtures/model-server, the real OpenAI and
 * Anthropic protocols), served from inside the swarm on every address of its container.
 */
import { startModelServer } from '../../fixtures/model-server';

async function main(): Promise<void> {
  const server = await startModelServer({ host: '0.0.0.0', port: Number(process.env.MODEL_PORT ?? 8001) });
  console.log(`model server listening on ${server.url}`);
  // A crawl's requests are kept for its checks in tests; here nothing reads them, so none are kept.
  setInterval(() => server.requests.splice(0), 10_000).unref();
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

void main();
