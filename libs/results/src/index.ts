export { toResultEventItem, type RecordResultInput, type ResultItem, type ResultRecord } from './result.types';
export { publicBaseUrl, type RequestOrigin } from './public-base-url';
export { EXPORT_BATCH_SIZE, ResultsRepository } from './results.repository';
export { ResultsService, bodyHeaders, type BodyStream, type ResultsServiceParts } from './results.service';
export { ResultStore } from './result-store';
export { ResultExports } from './result-exports';
export { sendBody } from './send-body';
export { pageKeyOf, SINGLE_PAGE_KEY } from './page-key';
export { ResultsModule } from './results.module';
export {
  DebugCaptureSetResponse,
  DownloadFileQuery,
  DownloadLinkQuery,
  DownloadLinkResponse,
  FieldProvenanceResponse,
  ResultItemResponse,
  ResultsQuery,
  ScreenshotFileQuery,
} from './dto/results-query.dto';
export { ScreenshotsService } from './screenshots.service';
export { WARNINGS_PROPERTY, WarningResponse } from './dto/warning.dto';
export { CONTENT_TRUNCATED_PROPERTY, ITEMS_PROPERTY, ItemsReportResponse } from './dto/completeness.dto';
