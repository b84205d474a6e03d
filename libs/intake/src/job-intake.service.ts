import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { AuthProfilesService } from '@app/auth-profiles';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, Errors, storeErrorWith, storeFailureOf, storeOutageOf } from '@app/core';
import { splitFetchControl, type FetchControlFields, type FetchMode, type StoredFetchControl } from '@app/fetch';
import { JobsService, type JobRecord, type JobType, type JobView } from '@app/jobs';
import { ModelRouter, storeLlmConfig, type LlmConfigInput, type ModelTarget, type StoredLlmConfig } from '@app/llm';
import { SavedSchemasService } from '@app/saved-schemas';
import { isSchemaFromPrompt, parseSchema, SCHEMA_FROM_PROMPT, type ParsedSchema } from '@app/schema';
import { SitesService, withSavedSecrets, type CrawlOptionsLayer, type FetchSecretMaps, type SiteRecord } from '@app/sites';
import { WebhookTargetsService, type JobWebhookFields } from '@app/webhooks';
import { jobFailureToProblem } from './failure-mapping';

/**
 * `extraction_mode: auto` needs a schema: learned programs are kept per schema, and one the model proposes page by
 * page has none (docs/learned-extraction.md). A 422 at `body.extraction_mode` when the schema is to come from the prompt.
 */
export function refuseLearnedFromPrompt(schema: ParsedSchema['jsonSchema'] | null, mode: string | undefined): void {
  if (mode === 'auto' && isSchemaFromPrompt(schema))
    throw Errors.validation([
      {
        location: 'body.extraction_mode',
        message: "is 'auto', which needs a schema (learned programs are kept per schema): give a schema beside the prompt, or use 'model'",
      },
    ]);
}

export interface SchemaFields {
  schema?: unknown;
  schema_id?: string;
  /** With no schema (given, by id or the site's): the model proposes each page's schema for it (SCHEMA_FROM_PROMPT). */
  prompt?: string;
}

/**
 * Where a request gives its saved ids (`site_id`, `schema_id`, `webhook_id`): the JSON body, or the query of
 * a request whose body is something else (a batch's URL list, a WARC file). A 422 names the field there.
 */
export type FieldsAt = 'body' | 'query';

export interface SubmitJob<I> {
  type: JobType;
  url: string | null;
  /** Builds the job input once the stored llm_config is known (it never holds the BYOK key). */
  input: (llmConfig: StoredLlmConfig | null) => I;
  captureDebug?: boolean;
  requestId: string;
  webhooks?: JobWebhookFields;
  /** Where `webhooks.webhook_id` was given (default: the body). */
  fieldsAt?: FieldsAt;
  llmConfig?: LlmConfigInput;
  /** Fail with `no_models` (422) before any job exists when no model is usable for the caller. */
  requireModel: boolean;
  /** Runs once every check passed, right before the job is recorded and queued (a batch stores its URL list). */
  beforeCreate?: () => Promise<void>;
  /** Further request-only secrets (the caller's fetch headers and cookies) to travel sealed with the queue message. */
  secrets?: Record<string, string>;
}

/**
 * Job intake, shared by every job-creating request (extract, analyze, crawl, the test controller):
 * saved sites and schemas as defaults under the request's own fields, webhook targets, the model
 * plan check, and the BYOK key split off to travel sealed in the queue message, never on the job.
 */
@Injectable()
export class JobIntakeService {
  constructor(
    private readonly jobs: JobsService,
    private readonly sites: SitesService,
    private readonly schemas: SavedSchemasService,
    private readonly targets: WebhookTargetsService,
    private readonly router: ModelRouter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly authProfiles: AuthProfilesService,
  ) {}

  /**
   * A request's `auth_profile` (or its saved site's, `location` then names what brought it): one of the caller's
   * auth profiles, or a 422 there (docs/auth-profiles.md). The worker finds a profile only among its job owner's too.
   */
  async authProfile(caller: { userId: string }, id: string | null | undefined, location: string): Promise<void> {
    if (id) await this.authProfiles.checkForUse(caller, id, location);
  }

  /** The caller's saved site named by `site_id` (422 when it is not theirs), or null without one. */
  site(caller: Caller, siteId: string | undefined, at: FieldsAt = 'body'): Promise<SiteRecord | null> {
    return siteId ? this.sites.resolveForUse(caller, siteId, `${at}.site_id`) : Promise.resolve(null);
  }

  /**
   * The headers and cookies a saved site keeps, opened (none without a site); they join a crawl's own,
   * sealed with it. They belong to the site's own host (docs/scrape.md "Fetch control in crawls and
   * batches"): a job that would take them to a page on another host (its seed, or a listed URL) is a 422
   * at `location`, never a silent send and never a silent drop.
   */
  siteSecrets(site: SiteRecord | null, targets: readonly string[], location: string): FetchSecretMaps | null {
    if (!site) return null;
    const secrets = this.sites.fetchSecrets(site);
    if (Object.keys(secrets.headers).length === 0 && Object.keys(secrets.cookies).length === 0) return secrets;
    const host = hostOf(site.url);
    const elsewhere = targets.filter((url) => hostOf(url) !== host);
    if (elsewhere.length > 0) {
      throw Errors.validation([
        {
          location,
          message:
            `the saved site's headers and cookies are only sent to its own host (${host}); ` +
            `${elsewhere.length === 1 ? 'this URL is' : `${elsewhere.length} URLs are`} on another host: give URLs on ${host}, or leave site_id out`,
          value: elsewhere[0],
        },
      ]);
    }
    return secrets;
  }

  /**
   * A single-page request's fetch control (extract, analyze: its top-level `headers`, `cookies`,
   * `user_agent`, `wait_for`), split into what the job stores and what travels sealed with it. With a
   * saved site, the site's headers and cookies go under the request's own exactly as under a crawl's
   * (withSavedSecrets: name by name, the request wins), and only to the site's host: a `url` on another
   * host is the crawl's 422 at `body.url` (siteSecrets). `saved`, the site's saved crawl options (an
   * extract's): their `user_agent`, `wait_for`, `proxy` and `auth_profile` apply when the request gives none, as they do for a crawl
   * of the site; a saved `wait_for` with a static fetch is a 422 at `body.fetch_mode` (it needs the browser).
   */
  pageFetchControl(
    site: SiteRecord | null,
    url: string,
    fields: FetchControlFields,
    fetchMode: FetchMode,
    saved: Pick<CrawlOptionsLayer, 'user_agent' | 'wait_for' | 'proxy' | 'auth_profile'> = {},
  ): { stored: StoredFetchControl | null; secrets: Record<string, string> } {
    const { headers, cookies, user_agent } = withSavedSecrets(
      { headers: fields.headers, cookies: fields.cookies, user_agent: fields.user_agent },
      this.siteSecrets(site, [url], 'body.url'),
    );
    const userAgent = user_agent ?? saved.user_agent ?? null;
    let waitFor = fields.wait_for ?? null;
    if (!waitFor && saved.wait_for) {
      if (fetchMode === 'static') {
        throw Errors.validation([
          {
            location: 'body.fetch_mode',
            message:
              "is static, and the saved site's crawl_options.wait_for needs the browser: use fetch_mode auto (which then renders) or dynamic, or leave site_id out",
          },
        ]);
      }
      waitFor = saved.wait_for;
    }
    return splitFetchControl(
      {
        ...(headers ? { headers } : {}),
        ...(cookies ? { cookies } : {}),
        ...(userAgent !== null ? { user_agent: userAgent } : {}),
        ...(waitFor ? { wait_for: waitFor } : {}),
        // The request's pool, else the saved site's (docs/proxies.md): `none` in the request fetches directly.
        ...((fields.proxy ?? saved.proxy) ? { proxy: (fields.proxy ?? saved.proxy)! } : {}),
        // The request's auth profile, else the saved site's (docs/auth-profiles.md).
        ...((fields.auth_profile ?? saved.auth_profile) ? { auth_profile: (fields.auth_profile ?? saved.auth_profile)! } : {}),
      },
      fetchMode,
    );
  }

  /** The request's URL, else the site's; 422 when neither is given. */
  url(requestUrl: string | undefined, site: SiteRecord | null): string {
    const url = requestUrl ?? site?.url;
    if (!url) throw Errors.validation([{ location: 'body.url', message: 'is required (or give a site_id)' }]);
    return url;
  }

  /**
   * The schema: given inline, or by `schema_id`, or the site's default schema (422 when none). A request with
   * its ids in the query has no inline schema: a missing one is reported at `query.schema_id`.
   */
  async schema(
    caller: Caller,
    fields: SchemaFields,
    siteDefault: string | null,
    at: FieldsAt = 'body',
  ): Promise<{ parsed: ParsedSchema; schemaId: string | null }> {
    if (fields.schema !== undefined && fields.schema !== null)
      return { parsed: parseSchema(fields.schema, `${at}.schema`), schemaId: null };
    const id = fields.schema_id ?? siteDefault;
    // A prompt alone: each page's schema is proposed by the model (docs/scrape.md "A prompt without a schema").
    if (!id && fields.prompt !== undefined && fields.prompt !== null)
      return { parsed: { form: 'json_schema', jsonSchema: SCHEMA_FROM_PROMPT, fieldCount: 0, warnings: [] }, schemaId: null };
    if (!id) {
      throw Errors.validation([
        at === 'query'
          ? { location: 'query.schema_id', message: 'is required (or a site_id of a site with a default schema)' }
          : { location: 'body.schema', message: 'is required (or give a schema_id, or a site with a default schema)' },
      ]);
    }
    const location = fields.schema_id ? `${at}.schema_id` : `${at}.site_id`;
    const { parsed } = await this.schemas.resolveForUse(caller, id, location, true);
    return { parsed, schemaId: id };
  }

  /** The models a job of this caller would use (422 `no_models` when none is usable). */
  plan(caller: Caller, llmConfig?: LlmConfigInput): Promise<ModelTarget[]> {
    return this.router.plan({ userId: caller.userId }, llmConfig);
  }

  async submit<I extends object>(caller: Caller, request: SubmitJob<I>): Promise<JobView> {
    const webhookTargets = request.webhooks ? await this.targets.resolve(caller, request.webhooks, request.fieldsAt) : [];
    if (request.requireModel) await this.plan(caller, request.llmConfig); // no_models fails here, before a job exists
    const { stored, secrets } = storeLlmConfig(request.llmConfig);
    await request.beforeCreate?.();
    return this.jobs
      .create(caller, {
        type: request.type,
        url: request.url,
        captureDebug: request.captureDebug ?? false,
        input: { ...request.input(stored) },
        requestId: request.requestId,
        webhookTargets: webhookTargets.map((target) => ({ ...target })),
        secrets: { ...secrets, ...(request.secrets ?? {}) },
      })
      .catch((error: unknown) => {
        // A store error after the job was stored names the job (JobLifecycle.create): its 503 says where to follow it.
        const jobId = (storeOutageOf(error) ?? storeFailureOf(error))?.extensions?.job_id;
        throw (typeof jobId === 'string' ? storeErrorWith(error, { job_id: jobId, status_url: this.statusUrl(jobId) }) : null) ?? error;
      });
  }

  private statusUrl(jobId: string): string {
    return `${this.config.publicUrl ?? ''}/api/v1/jobs/${jobId}`;
  }

  /**
   * The synchronous answer of a single-page job (extract, analyze, scrape): waits for it to finish
   * (GLEANER_EXTRACT_WAIT_MS). A failed or cancelled job is its problem (docs/api.md "HTTP status codes
   * of failed extract/analyze"); a job still running is a 504 with its id (it goes on), and a store outage
   * longer than the wait a 503 with its id.
   */
  async awaitJob<I = unknown, R = unknown>(jobId: string): Promise<JobRecord<I, R>> {
    let job: JobRecord<I, R> | null;
    try {
      job = await this.jobs.waitForTerminal<I, R>(jobId, this.config.extractWaitMs);
    } catch (error) {
      // A store outage that outlasts the wait, or a command the store failed: the job was accepted and goes on, so
      // the 503 says which it is.
      throw storeErrorWith(error, { job_id: jobId, status_url: this.statusUrl(jobId) }) ?? error;
    }
    if (!job) throw Errors.internal('The job vanished.');
    if (job.status === 'completed') return job;
    if (job.status === 'failed' || job.status === 'cancelled') throw jobFailureToProblem(job._id, job.error_category, job.error_message);
    throw new AppError('upstream-timeout', `The job did not finish within ${Math.round(this.config.extractWaitMs / 1000)} s; it goes on.`, {
      extensions: { job_id: jobId, status_url: `${this.config.publicUrl ?? ''}/api/v1/jobs/${jobId}` },
    });
  }
}

/** Host and port, as the page worker scopes headers and cookies (an unparsable URL matches nothing). */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
