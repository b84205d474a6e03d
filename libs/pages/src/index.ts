export { CONTENT_WORKER_FILE, PageLoaderService, type ConvertOptions, type LoadedPage, type LoadOptions } from './page-loader.service';
export { PagesModule } from './pages.module';
export { buildFormats, MAX_SCRAPE_DATA_BYTES, type PageInfo, type ScrapeData } from './page-formats';
export {
  DEFAULT_SCRAPE_FORMATS,
  formatsFetchProblem,
  formatsNeedModel,
  loadOptionsFor,
  normaliseFormats,
  pageFormatsPlanSchema,
  SCRAPE_FORMATS,
  type PageFormatsPlan,
  type ScrapeFormat,
} from './scrape-formats';
export {
  ExcludeTagsProperty,
  FullPageScreenshotProperty,
  IncludeTagsProperty,
  OnlyMainContentProperty,
  PageFormatsProperty,
} from './page-formats.property';
