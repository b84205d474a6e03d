import { AuthProfilesModule } from '@app/auth-profiles';
import { Module } from '@nestjs/common';
import { DuplicateIndex } from '@app/dedup';
import { ArchiveModule } from '@app/archive';
import { PagesModule } from '@app/pages';
import { IntakeModule } from '@app/intake';
import { MonitorListJobs } from '@app/monitors';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { CrawlRepository } from '../crawl.repository';
import { CrawlMapService } from './crawl-map.service';
import { MapService } from '../map/map.service';
import { BatchRequestsService } from './batch-requests.service';
import { CrawlRequestsService } from './crawl-requests.service';
import { ArchivedPageService } from './archived-page.service';
import { CrawlDeletion } from './crawl-deletion';
import { CrawlTenantErasure } from './crawl-tenant-erasure';
import { ReextractRequestsService } from './reextract-requests.service';
import { WarcExportService } from './warc-export.service';
import { WarcRequestsService } from './warc-requests.service';
import { CrawlMonitorListJobs } from './monitor-list-jobs';

/** The services the API's controllers call: provided and exported. */
const API_SERVICES = [
  CrawlRequestsService,
  BatchRequestsService,
  CrawlMapService,
  MapService,
  ReextractRequestsService,
  ArchivedPageService,
  WarcExportService,
  WarcRequestsService,
];

/**
 * API side: POST /crawl and POST /batch/extract intake, the crawl map, POST /map, and the archive's
 * operations (re-extraction, a result's page, WARC out and in, the clean-up of DELETE /jobs/{id}), and the
 * batch jobs of list monitors (MonitorListJobs).
 */
@Module({
  imports: [IntakeModule, JobsModule, ResultsModule, ArchiveModule, PagesModule, AuthProfilesModule],
  providers: [
    CrawlRepository,
    ...API_SERVICES,
    CrawlDeletion,
    DuplicateIndex,
    CrawlTenantErasure,
    CrawlMonitorListJobs,
    // The monitors lib's port: a list monitor's runs are batch jobs (libs/monitors depends not on this lib).
    { provide: MonitorListJobs, useExisting: CrawlMonitorListJobs },
  ],
  exports: [MonitorListJobs, ...API_SERVICES],
})
export class CrawlModule {}
