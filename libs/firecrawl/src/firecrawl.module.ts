import { Module, type DynamicModule } from '@nestjs/common';
import { ArchiveModule } from '@app/archive';
import { AuthModule } from '@app/auth';
import { CrawlModule } from '@app/crawl';
import { ExtractionModule } from '@app/extraction';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { ScrapeModule } from '@app/scrape';
import { FirecrawlJobsRepository } from './firecrawl-jobs.repository';
import { FirecrawlArchivedScrapes } from './archived-scrape.service';
import { FirecrawlScrapeService } from './scrape.service';
import { FirecrawlJobStartsService } from './job-starts.service';
import { FirecrawlJobStatusService } from './job-status.service';
import { FirecrawlExtractService } from './extract.service';
import { FirecrawlMapAndTeamService } from './map-and-team.service';
import { FirecrawlMonitorsService } from './monitors.service';
import { FirecrawlWatcherService } from './crawl-watcher.service';

const SERVICES = [
  FirecrawlScrapeService,
  FirecrawlJobStartsService,
  FirecrawlJobStatusService,
  FirecrawlExtractService,
  FirecrawlMapAndTeamService,
  FirecrawlMonitorsService,
  FirecrawlWatcherService,
];

/**
 * The Firecrawl-compatible API (docs/firecrawl.md): translations of /v2 onto Gleaner's own services. `monitors`
 * is the app's one MonitorsModule (a dynamic module: imported twice it would run a second scheduler).
 */
@Module({})
export class FirecrawlModule {
  static register(monitors: DynamicModule): DynamicModule {
    return {
      module: FirecrawlModule,
      imports: [AuthModule, JobsModule, ResultsModule, ScrapeModule, ExtractionModule, CrawlModule, ArchiveModule, IntakeModule, monitors],
      providers: [FirecrawlJobsRepository, FirecrawlArchivedScrapes, ...SERVICES],
      exports: SERVICES,
    };
  }
}
