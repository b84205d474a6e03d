import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { LOGGER, type AppLogger } from '@app/observability';
import { PageArchive } from './page-archive';

/**
 * Retention (docs/archive.md "How long"): every worker process sweeps the archive every
 * GLEANER_ARCHIVE_SWEEP_MS, deleting expired pages and the bodies only they referenced. Several
 * replicas sweeping at once is safe (every delete is conditional); it only repeats reads.
 */
@Injectable()
export class ArchiveRetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly archive: PageArchive,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweepNow(), this.config.archiveSweepMs);
    this.timer.unref();
  }

  /** One sweep (a sweep still running is not started twice). */
  sweepNow(): Promise<void> {
    this.running ??= this.sweepAll()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'archive retention sweep failed; retried at the next interval'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async sweepAll(): Promise<void> {
    let pages = 0;
    let bodies = 0;
    for (;;) {
      const swept = await this.archive.sweep(new Date(), 500);
      pages += swept.pages;
      bodies += swept.bodies;
      if (swept.pages < 500) break;
    }
    if (pages > 0 || bodies > 0) this.logger.info({ pages, bodies }, 'archive retention sweep');
  }
}
