import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, type AppLogger } from '@app/observability';
import { TenantDeletionService } from './tenant-deletion.service';

/** How often a deletion that stopped half way while the service kept running (a store outage) is taken up again. */
export const RESUME_EVERY_MS = 10 * 60 * 1000;
/** Deletions taken up per round (each is finished before the next starts). */
const RESUME_BATCH = 20;

/**
 * Finishes tenant deletions that stopped half way (docs/api.md "Users"): at start, every one; then every
 * RESUME_EVERY_MS, those that began longer ago than that (a deletion under way in a request is left to it).
 * Several replicas may take up the same deletion at once; every step of it is safe to run twice. Runs where
 * the API runs (the erasers are registered by the API's modules), never in the CLI.
 */
@Injectable()
export class TenantDeletionResumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** The start's round: resolves when every deletion found at start was taken up (tests wait on it). */
  startRound: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly deletion: TenantDeletionService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: the service starts answering while the deletions go on (their keys are refused already).
    this.startRound = this.resume(null);
    this.timer = setInterval(() => void this.resume(new Date(Date.now() - RESUME_EVERY_MS).toISOString()), RESUME_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Takes up the deletions that began before `before` (null: all); resolves to how many completed. */
  async resume(before: string | null): Promise<number> {
    let completed = 0;
    try {
      const pending = await this.deletion.unfinished(RESUME_BATCH);
      for (const user of pending) {
        if (this.stopped) break;
        if (before !== null && user.deleting_since >= before) continue;
        try {
          await this.deletion.erase(user.id);
          completed++;
        } catch {
          // Logged by the deletion; the next round tries again.
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not look for tenant deletions to resume');
    }
    return completed;
  }
}
