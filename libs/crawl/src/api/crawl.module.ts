import { Module } from '@nestjs/common';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { CrawlRepository } from '../crawl.repository';
import { CrawlMapService } from './crawl-map.service';
import { CrawlRequestsService } from './crawl-requests.service';

/** API side: POST /crawl intake and the crawl map. */
@Module({
  imports: [IntakeModule, JobsModule, ResultsModule],
  providers: [CrawlRepository, CrawlRequestsService, CrawlMapService],
  exports: [CrawlRequestsService, CrawlMapService],
})
export class CrawlModule {}
