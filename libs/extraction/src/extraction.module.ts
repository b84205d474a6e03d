import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { LlmModule } from '@app/llm';
import { ResultsModule } from '@app/results';
import { SavedSchemasModule } from '@app/saved-schemas';
import { SitesModule } from '@app/sites';
import { WebhooksModule } from '@app/webhooks';
import { AnalyzeJobHandler } from './analyze-job.handler';
import { ExtractJobHandler } from './extract-job.handler';
import { ExtractionRequestsService } from './extraction-requests.service';
import { ExtractionService } from './extraction.service';
import { PageLoaderService } from './page-loader.service';

/** API side: validates extract/analyze requests, records the job, waits for it. */
@Module({
  imports: [JobsModule, LlmModule, ResultsModule, SitesModule, SavedSchemasModule, WebhooksModule],
  providers: [ExtractionService, ExtractionRequestsService],
  exports: [ExtractionService, ExtractionRequestsService],
})
export class ExtractionModule {}

/** Crawler side: loads pages and runs extract/analyze jobs. */
@Module({
  imports: [JobsModule, LlmModule, ResultsModule],
  providers: [PageLoaderService, ExtractionService, ExtractJobHandler, AnalyzeJobHandler],
  exports: [PageLoaderService, ExtractionService, ExtractJobHandler, AnalyzeJobHandler],
})
export class ExtractionWorkerModule {}
