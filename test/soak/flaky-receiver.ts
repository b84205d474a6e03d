/**
 * The soak's webhook receiver: answers 500 to a seeded share of requests ("fails now and then") and
 * 200 otherwise, and records every request with its `webhook-id`, event type and job id.
 */
import { createServer, type Server } from 'node:http';
import type { Rng } from './soak-util';

export interface ReceivedHook {
  webhookId: string;
  type: string;
  jobId: string;
  answered: number;
  at: number;
}

export interface FlakyReceiver {
  url: string;
  requests: ReceivedHook[];
  close(): Promise<void>;
}

export async function startFlakyReceiver(rng: Rng, failShare: number): Promise<FlakyReceiver> {
  const requests: ReceivedHook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { type?: string; job_id?: string } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        body = {};
      }
      const status = rng() < failShare ? 500 : 200;
      requests.push({
        webhookId: String(req.headers['webhook-id'] ?? ''),
        type: body.type ?? '',
        jobId: body.job_id ?? '',
        answered: status,
        at: Date.now(),
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
