import type { INestApplicationContext } from '@nestjs/common';
import { AppError } from '@app/core';
import type { AppLogger } from '@app/observability';
import type { QueuePort } from '@app/queue';
import type { DocumentStore } from '@app/storage';

/**
 * SIGTERM/SIGINT: close the app (stop taking work, finish or hand back in-flight jobs, end
 * streams, close the ports) and exit 0; exit 1 if closing fails.
 */
export function installShutdown(app: INestApplicationContext, logger: AppLogger): void {
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down: no new work, finishing or handing back in-flight jobs');
    void app
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** /ready: the store and the queue answer; otherwise a 503 with Retry-After. */
export async function checkReadiness(store: DocumentStore, queue: QueuePort): Promise<{ store: string; queue: string }> {
  try {
    await store.ping();
    await queue.counts('jobs');
  } catch {
    throw new AppError('service-unavailable', 'The store or the queue is not reachable.', { retryAfterSeconds: 5 });
  }
  return { store: store.kind, queue: queue.kind };
}
