import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors, nowIso } from '@app/core';
import { BatchRequestDto, BatchRequestsService } from '@app/crawl';
import { ResultsService, type RequestOrigin } from '@app/results';
import { FirecrawlJobsRepository } from './firecrawl-jobs.repository';
import { asGleanerDto } from './gleaner-dto';
import { splitUrls } from './job-starts.service';
import { batchOptions } from './translate/crawl-options';
import { refuseTagFilters, refuseUnsupported } from './translate/fetch-options';
import { mergePageData } from './translate/merge';
import { gleanerWebhook } from './translate/webhook';
import { optionNotSupported, parseWith } from './wire/errors';
import { extractRequestSchema } from './wire/requests';
import type { ExtractStartedResponse, ExtractStatusResponse } from './wire/responses';

/**
 * What each page is extracted with: the schema, the prompts carried as its description (as a json format's); or,
 * with prompts alone, Gleaner's `prompt` without a schema: the model proposes each page's schema from it
 * (docs/firecrawl.md "json with a prompt alone").
 */
function extractWhat(
  given: Record<string, unknown> | undefined,
  notes: string[],
): { schema: Record<string, unknown> } | { prompt: string } {
  if (!given) {
    if (notes.length === 0) throw optionNotSupported('prompt', "an extract with neither a schema nor a prompt (give 'prompt' or 'schema')");
    return { prompt: notes.join('\n') };
  }
  const schema: Record<string, unknown> = { type: 'object', ...given };
  if (notes.length > 0)
    schema.description = [typeof schema.description === 'string' ? schema.description : '', ...notes].filter(Boolean).join('\n');
  return { schema };
}

/** Results read to merge an extract's answer (an extract of more pages is a crawl: read its results). */
const MAX_EXTRACT_PAGES = 1000;

/**
 * POST /v2/extract and its status: a Gleaner batch job with the schema (every URL extracted once by the
 * caller's model chain, on the crawl engine), its pages' data merged into Firecrawl's one answer. Firecrawl
 * retires /extract on its cloud; this server keeps it (docs/firecrawl.md "Extract").
 */
@Injectable()
export class FirecrawlExtractService {
  constructor(
    private readonly batches: BatchRequestsService,
    private readonly results: ResultsService,
    private readonly notes: FirecrawlJobsRepository,
  ) {}

  async start(caller: Caller, body: unknown, requestId: string, origin: RequestOrigin): Promise<ExtractStartedResponse> {
    const request = parseWith(extractRequestSchema, body);
    if (!request.urls || request.urls.length === 0)
      throw optionNotSupported('urls', 'an extract without URLs (web search is not available)');
    if (request.enableWebSearch) throw optionNotSupported('enableWebSearch', 'web search');
    if (request.agent) throw optionNotSupported('agent', 'agents');
    const wildcard = request.urls.find((url) => url.includes('*'));
    if (wildcard) throw optionNotSupported('urls', `wildcards (${wildcard}): map the site with /v2/map and list its URLs`);
    const scrape = request.scrapeOptions ?? {};
    refuseUnsupported(scrape, 'scrapeOptions.');
    refuseTagFilters(scrape, 'scrapeOptions.', 'an extract (the model reads the page)');
    const { valid, invalid } = splitUrls(request.urls);
    if (invalid.length > 0 && !request.ignoreInvalidURLs)
      throw optionNotSupported('urls', `invalid URLs (${invalid.slice(0, 5).join(', ')})`);
    if (valid.length === 0) throw optionNotSupported('urls', 'no valid URL left');
    const notes = [request.systemPrompt, request.prompt].filter((text): text is string => Boolean(text));
    const dto = await asGleanerDto(BatchRequestDto, {
      urls: valid,
      ...extractWhat(request.schema, notes),
      options: batchOptions(undefined, scrape),
      ...gleanerWebhook(request.webhook),
    });
    const answer = await this.batches.start(caller, dto, {}, requestId, origin);
    await this.notes.insert({
      _id: answer.body.job_id,
      user_id: caller.userId,
      kind: 'extract',
      formats: ['json'],
      json_only: true,
      ...(invalid.length > 0 ? { invalid_urls: invalid } : {}),
      created_at: nowIso(),
    });
    return { success: true, id: answer.body.job_id, ...(invalid.length > 0 ? { invalidURLs: invalid } : {}) };
  }

  async status(caller: Caller, jobId: string): Promise<ExtractStatusResponse> {
    const { job, items } = await this.results.page(caller, jobId, 0, MAX_EXTRACT_PAGES);
    const note = await this.notes.find(caller.userId, job._id);
    if (!note || note.kind !== 'extract') throw Errors.notFound('Extract job');
    const status = job.status === 'pending' || job.status === 'running' ? 'processing' : job.status;
    return {
      success: true,
      id: job._id,
      status,
      data: status === 'processing' ? null : mergePageData(items.map((item) => item.data)),
      creditsUsed: job.page_count * 5,
      tokensUsed: job.token_usage_input + job.token_usage_output,
      ...(status === 'failed' && job.error_message ? { error: job.error_message } : {}),
      ...(note.invalid_urls ? { warning: `Invalid URLs left out: ${note.invalid_urls.join(', ')}` } : {}),
    };
  }
}
