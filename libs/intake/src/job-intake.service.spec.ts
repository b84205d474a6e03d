import type { AuthProfilesService } from '@app/auth-profiles';
import type { Caller } from '@app/auth';
import type { AppConfig } from '@app/config';
import { AppError, Errors } from '@app/core';
import type { JobsService } from '@app/jobs';
import type { ModelRouter } from '@app/llm';
import type { SavedSchemasService } from '@app/saved-schemas';
import type { FetchSecretMaps, SiteRecord, SitesService } from '@app/sites';
import type { WebhookTargetsService } from '@app/webhooks';
import { isSchemaFromPrompt, SCHEMA_FROM_PROMPT } from '@app/schema';
import { JobIntakeService, refuseLearnedFromPrompt } from './job-intake.service';

const caller = { userId: 'u1' } as Caller;

/** What each stand-in site keeps sealed (SitesService.fetchSecrets opens it). */
const SAVED: Record<string, FetchSecretMaps> = {
  site_auth: { headers: { 'X-Key': 'site-key', 'X-Other': 'site-other' }, cookies: { session: 'site-session', theme: 'dark' } },
  site_bare: { headers: {}, cookies: {} },
};
const savedSite = (id: string, url: string) => ({ _id: id, url }) as SiteRecord;

/**
 * The saved-id lookups refuse an unknown id at the location they are handed, as the real services do
 * (SitesService.resolveForUse, SavedSchemasService.resolveForUse, WebhooksService.resolveForJob): the
 * stand-ins record that location, which is what this spec is about.
 */
function intake(): JobIntakeService {
  const unknown = (location: string, id: string) => Errors.validation([{ location, message: 'no such thing', value: id }]);
  const sites = {
    resolveForUse: async (_c: Caller, id: string, location: string) => {
      if (id === 'site_ok') return { _id: id, default_schema_id: null };
      throw unknown(location, id);
    },
    fetchSecrets: (site: SiteRecord) => SAVED[site._id] ?? { headers: {}, cookies: {} },
  } as unknown as SitesService;
  const schemas = {
    resolveForUse: async (_c: Caller, id: string, location: string) => {
      throw unknown(location, id);
    },
  } as unknown as SavedSchemasService;
  const targets = {
    resolve: async (_c: Caller, fields: { webhook_id?: string }, at = 'body') => {
      if (fields.webhook_id) throw unknown(`${at}.webhook_id`, fields.webhook_id);
      return [];
    },
  } as unknown as WebhookTargetsService;
  const profiles = {
    checkForUse: async (_c: Caller, id: string, location: string) => {
      if (id !== 'profile_ok') throw Errors.validation([{ location, message: 'no such auth profile', value: id }]);
    },
  } as unknown as AuthProfilesService;
  return new JobIntakeService({} as JobsService, sites, schemas, targets, {} as ModelRouter, {} as AppConfig, profiles);
}

async function locations(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return ((error as AppError).errors ?? []).map((e) => e.location);
}

describe('JobIntakeService: where a saved id was given is where its 422 points', () => {
  it('a JSON body: body.site_id, body.schema_id, body.schema', async () => {
    const service = intake();
    expect(await locations(service.site(caller, 'nope'))).toEqual(['body.site_id']);
    expect(await locations(service.schema(caller, { schema_id: 'nope' }, null))).toEqual(['body.schema_id']);
    expect(await locations(service.schema(caller, {}, 'sch_of_site'))).toEqual(['body.site_id']);
    expect(await locations(service.schema(caller, {}, null))).toEqual(['body.schema']);
    expect(await locations(service.schema(caller, { schema: 'name: [' }, null))).toEqual(['body.schema']);
  });

  it('a prompt alone stands for a schema the model proposes page by page; beside a schema it changes nothing', async () => {
    const service = intake();
    const alone = await service.schema(caller, { prompt: 'The products.' }, null);
    expect(alone).toEqual({ parsed: { form: 'json_schema', jsonSchema: SCHEMA_FROM_PROMPT, fieldCount: 0, warnings: [] }, schemaId: null });
    expect(isSchemaFromPrompt(alone.parsed.jsonSchema)).toBe(true);
    const beside = await service.schema(caller, { schema: { title: 'string' }, prompt: 'The title.' }, null);
    expect(isSchemaFromPrompt(beside.parsed.jsonSchema)).toBe(false);
    expect(beside.parsed.jsonSchema.properties).toHaveProperty('title');
    // A request cannot give the marker itself: a schema with no field does not parse.
    expect(await locations(service.schema(caller, { schema: { ...SCHEMA_FROM_PROMPT } }, null))).toEqual(['body.schema.properties']);
    expect(() => refuseLearnedFromPrompt(SCHEMA_FROM_PROMPT, 'auto')).toThrow(AppError);
    expect(() => refuseLearnedFromPrompt(beside.parsed.jsonSchema, 'auto')).not.toThrow();
  });

  it('the query (a URL list or WARC body): query.site_id, query.schema_id, query.webhook_id', async () => {
    const service = intake();
    expect(await locations(service.site(caller, 'nope', 'query'))).toEqual(['query.site_id']);
    expect(await service.site(caller, 'site_ok', 'query')).toMatchObject({ _id: 'site_ok' });
    expect(await locations(service.schema(caller, { schema_id: 'nope' }, null, 'query'))).toEqual(['query.schema_id']);
    // The site's default schema is gone: the site named in the query is the field at fault.
    expect(await locations(service.schema(caller, {}, 'sch_of_site', 'query'))).toEqual(['query.site_id']);
    // No schema at all: the query has no inline schema, only schema_id to give.
    expect(await locations(service.schema(caller, {}, null, 'query'))).toEqual(['query.schema_id']);
    const submitted = service.submit(caller, {
      type: 'batch',
      url: null,
      input: () => ({}),
      requestId: 'r1',
      webhooks: { webhook_id: 'nope' },
      fieldsAt: 'query',
      requireModel: false,
    });
    expect(await locations(submitted)).toEqual(['query.webhook_id']);
  });
});

describe("JobIntakeService.pageFetchControl: a single-page request over its saved site's headers and cookies", () => {
  const opened = (secrets: Record<string, string>) => ({
    headers: JSON.parse(secrets.fetch_headers ?? '{}') as Record<string, string>,
    cookies: JSON.parse(secrets.fetch_cookies ?? '{}') as Record<string, string>,
  });

  it("merges them name by name under the request's own: the request's value wins, every other saved one goes", () => {
    const site = savedSite('site_auth', 'http://auth.test:8080/');
    const control = intake().pageFetchControl(
      site,
      'http://auth.test:8080/p/1',
      { headers: { 'x-key': 'mine', Cookie: 'theme=light' }, cookies: { session: 'my-session' }, user_agent: 'Mine/1' },
      'auto',
    );
    expect(opened(control.secrets)).toEqual({
      headers: { 'X-Other': 'site-other', 'x-key': 'mine' },
      cookies: { theme: 'light', session: 'my-session' },
    });
    expect(control.stored).toEqual({ user_agent: 'Mine/1', wait_for: null });
  });

  it("takes the site's alone when the request gives none, and a request's User-Agent header is its user agent", () => {
    const site = savedSite('site_auth', 'http://auth.test:8080/');
    const control = intake().pageFetchControl(site, 'http://AUTH.test:8080/', { headers: { 'User-Agent': 'Mine/2' } }, 'static');
    expect(opened(control.secrets)).toEqual(SAVED.site_auth);
    expect(control.stored).toEqual({ user_agent: 'Mine/2', wait_for: null });
  });

  it('refuses a URL on another host (another port too) at body.url, naming it and no secret', () => {
    const site = savedSite('site_auth', 'http://auth.test:8080/');
    for (const url of ['http://other.test:8080/', 'http://auth.test:9090/']) {
      let error: unknown;
      try {
        intake().pageFetchControl(site, url, { cookies: { session: 'mine' } }, 'auto');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      const problems = (error as AppError).errors ?? [];
      expect(problems).toEqual([
        { location: 'body.url', message: expect.stringContaining('only sent to its own host (auth.test:8080)'), value: url },
      ]);
      expect(JSON.stringify(problems)).not.toMatch(/site-key|site-session|site-other/);
    }
  });

  it('without a site, or with a site that keeps none, is the request alone (any host)', () => {
    const mine = { headers: { 'X-Key': 'mine' } };
    const alone = intake().pageFetchControl(null, 'http://other.test/', mine, 'auto');
    const bare = intake().pageFetchControl(savedSite('site_bare', 'http://auth.test/'), 'http://other.test/', mine, 'auto');
    for (const control of [alone, bare]) {
      expect(opened(control.secrets)).toEqual({ headers: { 'X-Key': 'mine' }, cookies: {} });
      expect(control.stored).toBeNull();
    }
    expect(intake().pageFetchControl(null, 'http://other.test/', {}, 'auto')).toEqual({ stored: null, secrets: {} });
  });

  it("takes the site's saved user_agent and wait_for when the request gives none; the request's own win", () => {
    const site = savedSite('site_auth', 'http://auth.test/');
    const saved = { user_agent: 'Saved/1', wait_for: { selector: '#ready' } };
    expect(intake().pageFetchControl(site, 'http://auth.test/', {}, 'auto', saved).stored).toEqual(saved);
    // A User-Agent header is the request's user agent: it wins over the saved one too.
    const own = intake().pageFetchControl(
      site,
      'http://auth.test/',
      { headers: { 'User-Agent': 'Mine/3' }, wait_for: { ms: 500 } },
      'dynamic',
      saved,
    );
    expect(own.stored).toEqual({ user_agent: 'Mine/3', wait_for: { ms: 500 } });
  });

  it("refuses a saved wait_for with a static fetch at body.fetch_mode (the request's own is refused at body.wait_for)", () => {
    const site = savedSite('site_auth', 'http://auth.test/');
    const problems = (fields: object) => {
      try {
        intake().pageFetchControl(site, 'http://auth.test/', fields, 'static', { wait_for: { ms: 100 } });
      } catch (error) {
        return ((error as AppError).errors ?? []).map((problem) => problem.location);
      }
      return [];
    };
    expect(problems({})).toEqual(['body.fetch_mode']);
    expect(problems({ wait_for: { ms: 200 } })).toEqual(['body.wait_for']);
    // Without a saved wait_for a static fetch takes the saved user agent alone.
    expect(intake().pageFetchControl(site, 'http://auth.test/', {}, 'static', { user_agent: 'Saved/2' }).stored).toEqual({
      user_agent: 'Saved/2',
      wait_for: null,
    });
  });

  it("keeps the request's own rules: a user agent given twice is a 422 at body.user_agent", () => {
    const site = savedSite('site_auth', 'http://auth.test/');
    expect(() =>
      intake().pageFetchControl(site, 'http://auth.test/', { user_agent: 'A/1', headers: { 'user-agent': 'B/1' } }, 'auto'),
    ).toThrow(AppError);
  });

  it("an auth profile that is not the caller's: a 422 where it was named (the request's field, or its saved site)", async () => {
    const service = intake();
    await expect(service.authProfile(caller, 'profile_ok', 'body.auth_profile')).resolves.toBeUndefined();
    await expect(service.authProfile(caller, undefined, 'body.auth_profile')).resolves.toBeUndefined();
    expect(await locations(service.authProfile(caller, 'theirs', 'body.options.auth_profile'))).toEqual(['body.options.auth_profile']);
  });
});
