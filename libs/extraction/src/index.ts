export { ExtractionModeProperty, extractionModeSchema, type ExtractionMode } from './extraction-mode';
export { ExtractionFailure, ExtractionService, type ExtractOutput } from './extraction.service';
export { GroundingService, groundedCallOf, type GroundedCall, type GroundedResult } from './grounding.service';
export { ExtractionRequestsService } from './extraction-requests.service';
export { ExtractJobHandler } from './extract-job.handler';
export { AnalyzeJobHandler } from './analyze-job.handler';
export { ExtractionModule, ExtractionWorkerModule } from './extraction.module';
export { AnalyzeRequestDto, ExtractionResponse, ExtractionUsageResponse, ExtractRequestDto } from './dto/extract-request.dto';
export { LearnedProgramsService } from './learned-programs.service';
export { LearnedProgramListResponse, LearnedProgramResponse, ListLearnedProgramsQuery } from './dto/learned-programs.dto';
export { jsonSchemaObject, parseExtractInput, storedWarnings, type ExtractJobInput } from './job-inputs';
export type { ExtractionFacts } from './extraction-facts';
export { captureRecorder } from './page/capture';
export { keepPage } from './page/keep-page';
export {
  completedResult,
  DUPLICATE_REASONS,
  failedResult,
  PageFailure,
  resultMetadata,
  type DuplicateMade,
  type DuplicateReason,
  type ExtractionMade,
  type FormatsMade,
  type ModelIdentity,
  type PageExtraction,
  type PageMade,
  type ResultPlacement,
} from './page/page-extraction';
export { PageExtractor } from './page/page-extractor';
export {
  ModelPlanCache,
  pageLoadOptions,
  type DuplicateCheck,
  PLAN_CACHE_MS,
  type FormatsPagePlan,
  type ModelPagePlan,
  type PagePlan,
  type PageRun,
} from './page/page-plan';
export {
  PaginateDto,
  PaginateProperty,
  PaginationReportResponse,
  PAGINATE_DEFAULT_MAX_PAGES,
  PAGINATE_MAX_PAGES,
} from './dto/paginate.dto';
export { PageFollower, type CollectedPages, type Paginate } from './pagination/page-follower';
export { paginateInput, storedPaginate } from './pagination/paginate-input';
export type { PaginationReport } from './pagination/paged-merge';
