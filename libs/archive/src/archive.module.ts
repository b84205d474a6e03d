import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { METRICS, type Metrics } from '@app/observability';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { archiveMetrics } from './archive-metrics';
import { ArchiveRepository } from './archive.repository';
import { ARCHIVE_BLOBS, type ArchiveBlobStore } from './blob-store.port';
import { PageArchive } from './page-archive';

/** The page archive over the platform's document store and blob store (ARCHIVE_BLOBS, chosen by the deployment). */
@Module({
  providers: [
    {
      provide: PageArchive,
      useFactory: async (store: DocumentStore, blobs: ArchiveBlobStore, config: AppConfig, metrics: Metrics) => {
        const repository = await ArchiveRepository.open(store);
        const archive: PageArchive = new PageArchive(
          repository,
          blobs,
          { ttlDays: config.archiveTtlDays, maxBytesPerTenant: config.archiveMaxBytesPerTenant, maxBodyBytes: config.fetchMaxBytes },
          archiveMetrics(metrics, repository, () => archive.writeUsage()),
        );
        return archive;
      },
      inject: [DOCUMENT_STORE, ARCHIVE_BLOBS, APP_CONFIG, METRICS],
    },
  ],
  exports: [PageArchive],
})
export class ArchiveModule implements OnApplicationShutdown {
  constructor(private readonly archive: PageArchive) {}

  /** New bodies' usage not written yet (usage-tally.ts) is written on the way out; a store already gone loses it. */
  async onApplicationShutdown(): Promise<void> {
    await this.archive.flushUsage().catch(() => undefined);
  }
}
