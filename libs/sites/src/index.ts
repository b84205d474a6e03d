export {
  CANONICALIZE_MODES,
  DEDUPE_MODES,
  type CanonicalizeMode,
  type DedupeMode,
  CRAWL_CAPS,
  CRAWL_OPTION_DEFAULTS,
  CrawlOptionsDto,
  GroundingProperty,
  ProvenanceProperty,
  resolveCrawlOptions,
  validCrawlOptions,
  type CrawlOptions,
  type CrawlOptionsLayer,
} from './dto/crawl-options.dto';
export { CreateSiteDto, SiteListResponse, SiteResponse, UpdateSiteDto } from './dto/site.dto';
export { SavedCrawlOptionsDto, SavedCrawlOptionsView } from './dto/saved-crawl-options.dto';
export { withSavedSecrets } from './crawl-fetch-control';
export {
  maskedFetchSecrets,
  nextFetchSecrets,
  NO_FETCH_SECRETS,
  openFetchSecrets,
  savedCrawlOptions,
  sealFetchSecrets,
  SECRET_MASK,
  type FetchSecretMaps,
  type StoredFetchSecrets,
} from './saved-fetch-secrets';
export type { SiteRecord } from './sites.repository';
export { SitesService } from './sites.service';
export { SitesModule } from './sites.module';
