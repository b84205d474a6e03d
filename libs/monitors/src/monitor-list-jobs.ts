import type { Caller } from '@app/auth';
import type { Paginate } from '@app/extraction';
import type { JobWebhookTarget } from '@app/jobs';
import type { StoredLlmConfig } from '@app/llm';
import type { JsonSchemaObject } from '@app/schema';
import type { CrawlOptionsLayer, SiteRecord } from '@app/sites';

/** A monitor's URL list as POST /batch/extract would keep it: canonical and distinct, in the order given. */
export interface CheckedUrlList {
  urls: string[];
  /** URLs dropped as normalised duplicates of an earlier one. */
  duplicates: number;
}

/** What a list monitor's run needs to become a batch job. */
export interface ListRunRequest {
  urls: string[];
  site: SiteRecord | null;
  schema: JsonSchemaObject;
  schemaId: string | null;
  /** Each page's list read over its next pages (docs/monitors.md "Paginated lists"); null: none. */
  paginate: Paginate | null;
  /** The monitor's crawl options with its headers and cookies over the site's (the site's options and the defaults go under them). */
  options: CrawlOptionsLayer;
  llmConfig: StoredLlmConfig | null;
  extractionMode: 'model' | 'auto';
  monitorId: string;
  runId: string;
  requestId: string;
  webhookTargets: JobWebhookTarget[];
  secrets: Record<string, string>;
}

/**
 * The batch engine as a monitor of a URL list uses it (docs/monitors.md "Lists of pages"): the list
 * checked by the batch's rules, and each run a `batch` job. The crawl lib provides it (it depends on
 * this lib, not the other way round); MonitorsModule.register names the module that does.
 */
export abstract class MonitorListJobs {
  /** The list checked as a batch's is: an invalid URL is a 422 at `body.urls[i]`, too many distinct ones at `body.urls`. */
  abstract check(urls: string[]): CheckedUrlList;

  /** Stores the run's list and records its batch job (carrying `monitor_id`); returns the job id. */
  abstract start(caller: Caller, request: ListRunRequest): Promise<string>;
}
