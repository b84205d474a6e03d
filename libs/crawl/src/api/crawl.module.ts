import { Module } from '@nestjs/common';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { ResultsModule } from '@app/results';
import { CrawlRepository } from '../crawl.repository';
import { CrawlMapService } from './crawl-map.service';
import { MapService } from '../map/map.service';
import { BatchRequestsService } from './batch-requests.service';
import { CrawlRequestsService } from './crawl-requests.service';

/** API side: POST /crawl and POST /batch/extract intake, the crawl map, and POST /map. */
@Module({
  imports: [IntakeModule, JobsModule, ResultsModule],
  providers: [CrawlRepository, CrawlRequestsService, BatchRequestsService, CrawlMapService, MapService],
  exports: [CrawlRequestsService, BatchRequestsService, CrawlMapService, MapService],
})
export class CrawlModule {}
