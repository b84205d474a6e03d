import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors, newId } from '@app/core';
import { splitOptionsFetchControl } from '@app/fetch';
import { JobsService } from '@app/jobs';
import { MonitorListJobs, type CheckedUrlList, type ListRunRequest } from '@app/monitors';
import { validCrawlOptions } from '@app/sites';
import type { CrawlJobInput } from '../crawl-input';
import { CrawlRepository } from '../crawl.repository';
import { batchOptions, checkList } from './batch-requests.service';

/**
 * A list monitor's runs on the batch engine (docs/monitors.md "Lists of pages"): its URLs checked by the
 * batch's rules (POST /batch/extract), and each run a `batch` job whose list is stored as a batch's is,
 * with the monitor's options over its site's, as that endpoint records them.
 */
@Injectable()
export class CrawlMonitorListJobs extends MonitorListJobs {
  constructor(
    private readonly repository: CrawlRepository,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  check(urls: string[]): CheckedUrlList {
    const list = checkList(
      urls.map((url, index) => ({ index, line: index + 1, url })),
      (index) => `body.urls[${index}]`,
    );
    if (list.urls.length > this.config.batchMaxUrls) {
      throw Errors.validation([
        { location: 'body.urls', message: `must have at most ${this.config.batchMaxUrls} distinct URLs (GLEANER_BATCH_MAX_URLS)` },
      ]);
    }
    return { urls: list.urls, duplicates: list.duplicateCount };
  }

  async start(caller: Caller, request: ListRunRequest): Promise<string> {
    const { site, urls } = request;
    const saved = validCrawlOptions(site?.crawl_options);
    const { options, secrets } = splitOptionsFetchControl(
      batchOptions(urls.length, request.options, { ...saved, fetch_mode: saved.fetch_mode ?? site?.fetch_mode }),
      'body.options',
    );
    const listId = `list_${newId()}`;
    await this.repository.lists.storeList(listId, caller.userId, urls);
    const input: CrawlJobInput = {
      url: urls[0],
      schema: request.schema,
      schema_id: request.schemaId,
      page_formats: null,
      ...(request.paginate ? { paginate: request.paginate } : {}),
      site_id: site?._id ?? null,
      llm_config: request.llmConfig,
      options,
      extraction_mode: request.extractionMode,
      source: { kind: 'list', list_id: listId, urls: urls.length, duplicates: 0 },
      monitor_id: request.monitorId,
      monitor_run_id: request.runId,
    };
    const job = await this.jobs.create(caller, {
      type: 'batch',
      url: urls[0],
      input,
      requestId: request.requestId,
      webhookTargets: request.webhookTargets,
      secrets: { ...request.secrets, ...secrets },
    });
    return job.id;
  }
}
