import { AuthProfilesModule } from '@app/auth-profiles';
import { Module } from '@nestjs/common';
import { ArchiveModule } from '@app/archive';
import { IntakeModule } from '@app/intake';
import { JobsModule } from '@app/jobs';
import { LlmModule } from '@app/llm';
import { PagesModule } from '@app/pages';
import { ResultsModule } from '@app/results';
import { AnalyzeJobHandler } from './analyze-job.handler';
import { ExtractJobHandler } from './extract-job.handler';
import { ExtractionRequestsService } from './extraction-requests.service';
import { ExtractionService } from './extraction.service';
import { GroundingService } from './grounding.service';
import { LearnedProgramsService } from './learned-programs.service';
import { LearnedTenantErasure } from './learned-tenant-erasure';
import { PageExtractor } from './page/page-extractor';
import { PageRecords, PageSteps } from './page/page-extractor-parts';

/** API side: job intake for extract/analyze requests (then waits for the job), and the learned programs they and crawls use. */
@Module({
  imports: [IntakeModule, JobsModule, ResultsModule],
  providers: [ExtractionRequestsService, LearnedProgramsService, LearnedTenantErasure],
  exports: [ExtractionRequestsService, LearnedProgramsService],
})
export class ExtractionModule {}

/**
 * Crawler side: the page pipeline's extraction step (PageExtractor: the model chain or learned programs, grounding,
 * formats) every job's pages go through, and the extract/analyze job handlers (an extract may keep its page in the archive).
 */
@Module({
  imports: [JobsModule, LlmModule, ResultsModule, PagesModule, ArchiveModule, AuthProfilesModule],
  providers: [ExtractionService, GroundingService, PageSteps, PageRecords, PageExtractor, ExtractJobHandler, AnalyzeJobHandler],
  exports: [ExtractionService, GroundingService, PageExtractor, ExtractJobHandler, AnalyzeJobHandler, PagesModule],
})
export class ExtractionWorkerModule {}
