/** The served OpenAPI document is a valid OpenAPI 3.1 document and covers every public route. */
import { startEmbedded, type RunningApp } from './embedded-app';
import { http } from './helpers';

describe('OpenAPI document', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded();
  });
  afterAll(async () => env.close());

  it('validates against the OpenAPI 3.1 schema', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    // ESM-only package: loaded with a real dynamic import (Node 24 + --experimental-vm-modules).
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(doc);
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2).slice(0, 4000));
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every API route with bearer auth and JSON examples', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const paths = Object.keys(doc.paths);
    for (const path of [
      '/api/v1/keys',
      '/api/v1/keys/{id}',
      '/api/v1/users',
      '/api/v1/jobs',
      '/api/v1/jobs/{id}',
      '/api/v1/jobs/{id}/cancel',
      '/api/v1/jobs/{id}/stream',
    ]) {
      expect(paths).toContain(path);
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/api/v1/keys'].post.security).toEqual([{ bearer: [] }]);
  });

  it('states the monitor operations exactly: statuses, the schedule rules, the changes media types', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    const common = ['401', '403', '429', '500', '503'];
    const withId = [...common, '400', '404', '422'].sort();
    expect(statuses('/api/v1/monitors', 'post')).toEqual(['201', ...common, '400', '413', '415', '422'].sort());
    expect(statuses('/api/v1/monitors', 'get')).toEqual(['200', ...common, '400', '422'].sort());
    expect(statuses('/api/v1/monitors/{id}', 'get')).toEqual(['200', ...withId].sort());
    expect(statuses('/api/v1/monitors/{id}', 'put')).toEqual(['200', ...withId, '413', '415'].sort());
    expect(statuses('/api/v1/monitors/{id}', 'delete')).toEqual(['204', ...withId, '413', '415'].sort());
    expect(statuses('/api/v1/monitors/{id}/run', 'post')).toEqual(['202', ...withId, '409', '413', '415'].sort());
    // A body sent to an operation that takes none is still read (its limit and content type answer): 413, 415.
    for (const verb of ['pause', 'resume'])
      expect(statuses(`/api/v1/monitors/{id}/${verb}`, 'post')).toEqual(['200', ...withId, '413', '415'].sort());
    for (const read of ['runs', 'changes', 'state'])
      expect(statuses(`/api/v1/monitors/{id}/${read}`, 'get')).toEqual(['200', ...withId].sort());
    const changes = doc.paths['/api/v1/monitors/{id}/changes'].get;
    expect(Object.keys(changes.responses['200'].content).sort()).toEqual(['application/json', 'application/x-ndjson']);
    expect(changes.parameters.map((p: any) => p.name).sort()).toEqual(['format', 'id', 'kind', 'limit', 'offset', 'run_id', 'since']);
    const schedule = doc.components.schemas.MonitorScheduleDto;
    expect(schedule.properties.every).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(schedule.additionalProperties).toBe(false);
    const create = doc.components.schemas.CreateMonitorDto;
    expect(create.required.sort()).toEqual(['name', 'schedule']);
    expect(create.properties.key).toMatchObject({ type: 'array', minItems: 1, maxItems: 5 });
    // A list monitor: `urls` as POST /batch/extract takes them; a list of monitors leaves them out (url_count).
    expect(create.properties.urls).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 10000,
      items: { type: 'string', maxLength: 2048 },
    });
    expect(doc.components.schemas.MonitorResponse.properties.urls).toMatchObject({ type: ['array', 'null'] });
    const listed = doc.components.schemas.MonitorListResponse.properties.monitors.items.$ref.split('/').pop();
    expect(doc.components.schemas[listed].properties).toHaveProperty('url_count');
    expect(doc.components.schemas[listed].properties).not.toHaveProperty('urls');
    expect(doc.paths['/api/v1/monitors/{id}/run'].post.description).toMatch(/cannot start.*409/);
    expect(doc.components.schemas.MonitorNotifyDto.properties.on.items.enum).toEqual(['changed', 'added', 'removed', 'failed']);
  });

  it("states a saved site's and a monitor's headers and cookies exactly: the crawl options' rules, the mask sent back, the masked answer", async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const schemas = doc.components.schemas;
    for (const body of ['CreateSiteDto', 'UpdateSiteDto'])
      expect(schemas[body].properties.crawl_options.allOf).toEqual([{ $ref: '#/components/schemas/SavedCrawlOptionsDto' }]);
    expect(schemas.CreateMonitorDto.properties.options.allOf).toEqual([{ $ref: '#/components/schemas/SavedCrawlOptionsDto' }]);
    const saved = schemas.SavedCrawlOptionsDto;
    const crawl = schemas.CrawlOptionsDto;
    expect(Object.keys(saved.properties).sort()).toEqual(Object.keys(crawl.properties).sort());
    for (const name of ['headers', 'cookies']) {
      const given = saved.properties[name];
      // The crawl options' rule, null (remove) and the mask (keep) besides.
      expect(given.type).toEqual(['object', 'null']);
      expect(given.propertyNames).toEqual(crawl.properties[name].propertyNames);
      expect(given.maxProperties).toBe(50);
      const value = new RegExp(given.additionalProperties.pattern);
      const crawlValue = new RegExp(crawl.properties[name].additionalProperties.pattern);
      expect([value.test('••••'), crawlValue.test('••••')]).toEqual([true, false]);
      expect([value.test('abc123'), value.test('x••••'), value.test('a\nb')]).toEqual([true, false, false]);
    }
    for (const answer of ['SiteResponse', 'MonitorResponse'])
      expect(schemas[answer].properties[answer === 'SiteResponse' ? 'crawl_options' : 'options']).toEqual({
        $ref: '#/components/schemas/SavedCrawlOptionsView',
      });
    for (const name of ['headers', 'cookies'])
      expect(schemas.SavedCrawlOptionsView.properties[name].additionalProperties).toEqual({ type: 'string', enum: ['••••'] });
  });

  it('states the batch and map operations exactly: bodies, media types and every status', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const batch = doc.paths['/api/v1/batch/extract'].post;
    expect(Object.keys(batch.requestBody.content).sort()).toEqual(['application/json', 'application/x-ndjson', 'text/plain']);
    expect(Object.keys(batch.responses).sort()).toEqual(['202', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(batch.parameters.map((p: any) => p.name).sort()).toEqual([
      'Idempotency-Key',
      'extraction_mode',
      'schema_id',
      'site_id',
      'webhook_id',
    ]);
    // Every job-creating POST takes Idempotency-Key and says it may answer 409 and 422 for it.
    for (const path of ['/api/v1/extract', '/api/v1/analyze', '/api/v1/crawl', '/api/v1/batch/extract']) {
      const op = doc.paths[path].post;
      expect(op.parameters.find((p: any) => p.name === 'Idempotency-Key')).toMatchObject({
        in: 'header',
        required: false,
        schema: { maxLength: 255 },
      });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
    }
    expect(doc.paths['/api/v1/map'].post.parameters ?? []).toEqual([]);
    const request = doc.components.schemas.BatchRequestDto;
    expect(request.required).toEqual(['urls']);
    expect(request.properties.urls).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 10000,
      items: { type: 'string', maxLength: 2048 },
    });
    expect(Object.keys(doc.components.schemas.BatchOptionsDto.properties).sort()).toEqual([
      'archive',
      'auth_profile',
      'canonicalize',
      'concurrency',
      'cookies',
      'copy_duplicates',
      'dedupe',
      'delay_ms',
      'fetch_mode',
      'grounding',
      'headers',
      'ignore_query_params',
      'max_cost_usd',
      'provenance',
      'proxy',
      'respect_robots',
      'user_agent',
      'wait_for',
    ]);
    // Duplicates (docs/dedup.md): the options' rules as validation has them.
    expect(doc.components.schemas.BatchOptionsDto.properties.dedupe).toMatchObject({ enum: ['off', 'exact', 'near'], default: 'off' });
    expect(doc.components.schemas.BatchOptionsDto.properties.canonicalize).toMatchObject({
      enum: ['default', 'strict'],
      default: 'default',
    });
    expect(doc.components.schemas.BatchOptionsDto.properties.ignore_query_params).toMatchObject({ type: 'array', maxItems: 50 });
    expect(doc.components.schemas.BatchOptionsDto.properties.copy_duplicates).toMatchObject({ type: 'boolean', default: false });
    // Crawls and saved sites take the same options (one definition).
    for (const options of ['CrawlOptionsDto', 'BatchOptionsDto'])
      expect(Object.keys(doc.components.schemas[options].properties)).toEqual(
        expect.arrayContaining(['canonicalize', 'ignore_query_params', 'dedupe', 'copy_duplicates']),
      );
    // What a job, its crawl map and its results say of duplicates.
    const job = doc.components.schemas.JobResponse.properties;
    expect(job.duplicates).toMatchObject({ allOf: [{ $ref: '#/components/schemas/DuplicateCountsResponse' }] });
    expect(doc.components.schemas.DuplicateCountsResponse).toMatchObject({
      required: ['canonical', 'exact', 'near', 'redirect'],
      properties: { canonical: { type: 'integer', minimum: 0 }, near: { type: 'integer', minimum: 0 } },
    });
    expect(job.model_calls_saved).toMatchObject({ type: 'integer', minimum: 0 });
    const entry = doc.components.schemas.CrawlMapEntryResponse;
    expect(entry.required).toEqual(expect.arrayContaining(['duplicate_of', 'duplicate_reason', 'similarity']));
    expect(entry.properties.duplicate_of).toMatchObject({ type: ['string', 'null'] });
    expect(entry.properties.duplicate_reason).toMatchObject({ enum: ['canonical', 'exact', 'near', 'redirect', null] });
    expect(entry.properties.similarity).toMatchObject({ minimum: 0, maximum: 1 });
    expect(doc.components.schemas.ResultMetadataResponse.properties.duplicate_of).toMatchObject({ type: 'string', format: 'uri' });
    expect(doc.components.schemas.BatchOptionsDto.properties.proxy).toMatchObject({
      type: 'string',
      description: expect.stringContaining('GLEANER_PROXY_POOLS'),
    });
    const map = doc.paths['/api/v1/map'].post;
    expect(Object.keys(map.responses).sort()).toEqual(['200', '400', '401', '403', '413', '415', '422', '429', '500', '502', '503']);
    expect(Object.keys(map.responses['200'].content).sort()).toEqual(['application/json', 'application/x-ndjson']);
    expect(doc.components.schemas.MapRequestDto.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100000 });
  });

  it('states the auth profile operations exactly: every status, the host rule, the credentials write-only in effect (masked)', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    const common = ['400', '401', '403', '413', '415', '422', '429', '500', '503'];
    expect({
      create: statuses('/api/v1/auth-profiles', 'post'),
      list: statuses('/api/v1/auth-profiles', 'get'),
      get: statuses('/api/v1/auth-profiles/{id}', 'get'),
      update: statuses('/api/v1/auth-profiles/{id}', 'put'),
      remove: statuses('/api/v1/auth-profiles/{id}', 'delete'),
    }).toEqual({
      create: ['201', ...common].sort(),
      list: ['200', '401', '403', '429', '500', '503'],
      // A path id is checked (400 malformed, 422 refused) though there is no body.
      get: ['200', '400', '401', '403', '404', '422', '429', '500', '503'],
      update: ['200', '404', ...common].sort(),
      remove: ['200', '404', ...common].sort(),
    });
    const create = doc.components.schemas.CreateAuthProfileDto;
    expect(create.required.sort()).toEqual(['hosts', 'login', 'name']);
    expect(create.properties.hosts).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 });
    expect(doc.components.schemas.LoginDto.required.sort()).toEqual(['password', 'type', 'url', 'username']);
    expect(doc.components.schemas.LoginDto.properties.type.enum).toEqual(['form', 'browser']);
    expect(doc.components.schemas.BrowserStepDto.properties.action.enum).toEqual(['goto', 'fill', 'click', 'wait_for']);
    expect(doc.components.schemas.LoginView.properties.password.description).toBe('Always the mask.');
    expect(Object.keys(doc.components.schemas.MapRequestDto.properties)).toEqual(
      expect.arrayContaining(['headers', 'cookies', 'user_agent', 'auth_profile']),
    );
    expect(doc.components.schemas.ScrapeRequestDto.properties.auth_profile).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
  });

  it('states the user operations exactly: every status of DELETE /users/{id}, the status of a listed user', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    const common = ['401', '403', '429', '500', '503'];
    expect(statuses('/api/v1/users/{id}', 'delete')).toEqual(['204', '400', '404', '409', '413', '415', '422', ...common].sort());
    expect(doc.paths['/api/v1/users/{id}'].delete.responses['204'].content).toBeUndefined();
    expect(doc.paths['/api/v1/users/{id}'].delete.security).toEqual([{ bearer: [] }]);
    expect(doc.components.schemas.UserResponse.properties.status).toMatchObject({ enum: ['active', 'deleting'] });
    expect(doc.components.schemas.UserResponse.required).toContain('status');
  });

  it('states the archive operations exactly: the WARC body, the job types, every status', async () => {
    const doc = (await http(env.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const warcIn = doc.paths['/api/v1/warc-extract'].post;
    expect(Object.keys(warcIn.requestBody.content).sort()).toEqual(['application/gzip', 'application/warc']);
    expect(warcIn.requestBody.content['application/warc'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(Object.keys(warcIn.responses).sort()).toEqual(['202', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(warcIn.parameters.map((p: any) => p.name).sort()).toEqual([
      'concurrency',
      'extraction_mode',
      'schema_id',
      'site_id',
      'webhook_id',
    ]);
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    const common = ['400', '401', '403', '422', '429', '500', '503'];
    expect(statuses('/api/v1/jobs/{id}/reextract', 'post')).toEqual(['202', '404', '409', '413', '415', ...common].sort());
    expect(statuses('/api/v1/jobs/{id}', 'delete')).toEqual(['200', '404', '409', '413', '415', ...common].sort());
    expect(statuses('/api/v1/jobs/{id}/results/{resultId}/page', 'get')).toEqual(['200', '404', ...common].sort());
    expect(statuses('/api/v1/jobs/{id}/warc', 'get')).toEqual(['200', '404', ...common].sort());
    expect(doc.components.schemas.ReextractRequestDto.properties.only).toMatchObject({ enum: ['all', 'failed', 'ungrounded'] });
    const page = doc.paths['/api/v1/jobs/{id}/results/{resultId}/page'].get;
    expect(page.parameters.find((p: any) => p.name === 'view').schema).toMatchObject({ enum: ['raw', 'text'] });
    expect(Object.keys(doc.paths['/api/v1/jobs/{id}/warc'].get.responses['200'].content)).toEqual(['application/gzip']);
    expect(doc.components.schemas.JobResponse.properties.type.enum).toEqual(expect.arrayContaining(['reextract', 'warc-extract']));
  });
});
