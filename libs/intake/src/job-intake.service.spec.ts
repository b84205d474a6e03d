import type { Caller } from '@app/auth';
import type { AppConfig } from '@app/config';
import { AppError, Errors } from '@app/core';
import type { JobsService } from '@app/jobs';
import type { ModelRouter } from '@app/llm';
import type { SavedSchemasService } from '@app/saved-schemas';
import type { SitesService } from '@app/sites';
import type { WebhookTargetsService } from '@app/webhooks';
import { JobIntakeService } from './job-intake.service';

const caller = { userId: 'u1' } as Caller;

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
  return new JobIntakeService({} as JobsService, sites, schemas, targets, {} as ModelRouter, {} as AppConfig);
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
