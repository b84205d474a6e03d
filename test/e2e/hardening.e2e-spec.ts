/**
 * Regression tests for what the API fuzzer found (issue 11; docs/api.md "Robust input", "405"):
 * out-of-range and non-integer numbers, odd unknown keys (__proto__, constructor), lone surrogates,
 * control characters, duplicate keys, deep nesting and huge arrays are each a 4xx problem+json and
 * never a 500 with nothing stored; undeclared methods are 405 with Allow; the OpenAPI document states
 * the rules the validation enforces and every status an operation answers; cloud metadata endpoints
 * stay closed with GLEANER_ALLOW_PRIVATE_NETWORKS=true.
 */
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, type HttpResult } from './helpers';

function expectProblem(res: HttpResult, status: number, location?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//) });
  if (location) expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
}

describe('hardening from outside (embedded)', () => {
  let env: RunningApp;
  let key: string;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) => http(env.baseUrl, method, path, { key, ...opts });

  beforeAll(async () => {
    env = await startEmbedded({ GLEANER_ALLOW_PRIVATE_NETWORKS: 'true', GLEANER_EXTRACT_WAIT_MS: '20000' });
    key = env.adminKey;
  });
  afterAll(async () => env.close());

  describe('query numbers', () => {
    it.each([
      ['offset=3.5e306', 'query.offset'],
      ['offset=1e306', 'query.offset'],
      ['offset=1000001', 'query.offset'],
      ['offset=-1', 'query.offset'],
      ['offset=1.5', 'query.offset'],
      ['offset=0x10', 'query.offset'],
      ['offset=', 'query.offset'],
      ['limit=-1', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=2.0', 'query.limit'],
      ['limit=1e1', 'query.limit'],
      ['limit=99999999999999999999', 'query.limit'],
    ])('GET /jobs?%s is a 422 at %s (was a 500 for 3.5e306)', async (query, location) => {
      expectProblem(await call('GET', `/api/v1/jobs?${query}`), 422, location);
    });

    it('plain integers in range are accepted', async () => {
      const res = await call('GET', '/api/v1/jobs?limit=100&offset=1000000');
      expect(res.status).toBe(200);
      expect(res.body.jobs).toEqual([]);
    });
  });

  describe('bodies with odd keys and text: 4xx, nothing stored', () => {
    const creates: Array<[string, string, Record<string, unknown>]> = [
      ['POST', '/api/v1/schemas', { name: 'ok', schema_yaml: 'a: string' }],
      ['POST', '/api/v1/users', { name: 'ok' }],
      ['POST', '/api/v1/keys', { name: 'ok' }],
      ['POST', '/api/v1/webhooks', { name: 'ok', url: 'https://hooks.example/x', is_active: true }],
      ['PUT', '/api/v1/sites/odd-keys-site', { url: 'https://site.example/' }],
    ];
    const listOf: Record<string, string> = {
      '/api/v1/schemas': '/api/v1/schemas',
      '/api/v1/users': '/api/v1/users',
      '/api/v1/keys': '/api/v1/keys',
      '/api/v1/webhooks': '/api/v1/webhooks',
      '/api/v1/sites/odd-keys-site': '/api/v1/sites',
    };
    const count = async (path: string) => {
      const res = await call('GET', listOf[path]);
      return res.status === 200 ? JSON.stringify(res.body).length : -1;
    };

    for (const [method, path, valid] of creates) {
      it.each([
        ['__proto__', '{"__proto__":{"admin":true}}'],
        ['constructor', '{"constructor":{"prototype":{"admin":true}}}'],
        ['toString', '{"toString":1}'],
        ['hasOwnProperty', '{"hasOwnProperty":"x"}'],
        ['an empty key', '{"":1}'],
        ['a NUL key', '{"\\u0000":1}'],
        ['a non-BMP key', '{"\\ud83d\\ude00":1}'],
      ])(`${method} ${path} with %s is a 422 and stores nothing`, async (_name, extra) => {
        const before = await count(path);
        const raw = JSON.stringify(valid).slice(0, -1) + ',' + extra.slice(1);
        const res = await call(method, path, { rawBody: raw, headers: { 'content-type': 'application/json' } });
        expectProblem(res, 422);
        expect(res.body.errors.some((e: { message: string }) => e.message === 'unknown field')).toBe(true);
        expect(await count(path)).toBe(before);
        expect(({} as Record<string, unknown>).admin).toBeUndefined();
      });

      it(`${method} ${path}: a lone surrogate is a 400 pointing at the field`, async () => {
        const raw = JSON.stringify(valid).replace(/"(ok|https:\/\/[^"]+)"/, '"ok\\ud800"');
        expectProblem(await call(method, path, { rawBody: raw, headers: { 'content-type': 'application/json' } }), 400);
      });

      it(`${method} ${path}: duplicate keys are a 400`, async () => {
        const first = Object.keys(valid)[0];
        const raw = JSON.stringify(valid).slice(0, -1) + `,${JSON.stringify(first)}:"again"}`;
        expectProblem(await call(method, path, { rawBody: raw, headers: { 'content-type': 'application/json' } }), 400, `body.${first}`);
      });
    }

    it.each([
      ['/api/v1/users', { name: 'bell\u0007' }, 'body.name'],
      ['/api/v1/users', { name: 'c1\u0085' }, 'body.name'],
      ['/api/v1/keys', { name: 'nul\u0000' }, 'body.name'],
      ['/api/v1/schemas', { name: 'tab\tname', schema_yaml: 'a: string' }, 'body.name'],
      ['/api/v1/webhooks', { name: 'esc\u001b', url: 'https://hooks.example/x', is_active: true }, 'body.name'],
    ])('POST %s with a control character in a name is a 422', async (path, body, location) => {
      expectProblem(await call('POST', path, { body }), 422, location);
    });

    it('accepts names with non-ASCII letters and emoji (valid Unicode)', async () => {
      const res = await call('POST', '/api/v1/keys', { body: { name: 'Zoë 🚀 日本' } });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('Zoë 🚀 日本');
    });

    it('deep nesting, huge arrays, invalid JSON and non-object bodies are each a clear 4xx', async () => {
      const deep = '{"name":"x","schema_yaml":"a: string","tags":' + '['.repeat(40) + ']'.repeat(40) + '}';
      expectProblem(await call('POST', '/api/v1/schemas', { rawBody: deep, headers: { 'content-type': 'application/json' } }), 400);
      const huge = JSON.stringify({ name: 'x', schema_yaml: 'a: string', tags: Array.from({ length: 10_001 }, () => 't') });
      expectProblem(await call('POST', '/api/v1/schemas', { rawBody: huge, headers: { 'content-type': 'application/json' } }), 400);
      expectProblem(await call('POST', '/api/v1/users', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400);
      expectProblem(await call('POST', '/api/v1/users', { rawBody: 'null', headers: { 'content-type': 'application/json' } }), 422, 'body');
      expectProblem(await call('POST', '/api/v1/users', { rawBody: '[1]', headers: { 'content-type': 'application/json' } }), 422, 'body');
      expectProblem(
        await call('POST', '/api/v1/users', { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        415,
      );
    });

    it.each([
      ['{"chain":[[],[]]}', 'body.chain[0]'],
      ['{"chain":[1]}', 'body.chain[0]'],
      ['{"chain":["openai"]}', 'body.chain[0]'],
      ['{"chain":[{"provider":"openai","model":"m"},[]]}', 'body.chain[1]'],
    ])('PUT /llm/chain %s is a 422, not a 500 (found by the fuzzer)', async (raw, location) => {
      const res = await call('PUT', '/api/v1/llm/chain', { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectProblem(res, 422, location);
      expect((await call('GET', '/api/v1/llm/chain')).body.chain).toEqual([]);
    });

    it('a nested object given as an array is a 422', async () => {
      expectProblem(
        await call('PUT', '/api/v1/sites/nested-array', { body: { url: 'https://site.example/', crawl_options: [] } }),
        422,
        'body.crawl_options',
      );
    });

    it('null for an optional field that is not nullable is a 422 (absent is the way to leave it out)', async () => {
      expectProblem(await call('POST', '/api/v1/keys', { body: { name: 'k', expires_at: null } }), 422, 'body.expires_at');
    });
  });

  describe('undeclared methods', () => {
    it.each([
      ['DELETE', '/api/v1/jobs', ['GET', 'HEAD']],
      ['PUT', '/api/v1/jobs/01J00000000000000000000000', ['GET', 'HEAD']],
      ['PATCH', '/api/v1/keys/abc', ['DELETE']],
      ['POST', '/api/v1/usage', ['GET', 'HEAD']],
      ['DELETE', '/api/v1/openapi.json', ['GET', 'HEAD']],
    ])('%s %s is a 405 with Allow', async (method, path, allowed) => {
      const res = await call(method, path);
      expectProblem(res, 405);
      expect(res.body.type).toBe('/problems/method-not-allowed');
      expect(
        res.headers
          .get('allow')!
          .split(',')
          .map((m) => m.trim()),
      ).toEqual(expect.arrayContaining(allowed));
    });

    it('router-level refusals are problem+json too: a 101-character id is a 404, malformed percent-encoding a 400', async () => {
      expectProblem(await call('GET', `/api/v1/webhooks/${'a'.repeat(101)}`), 404);
      expectProblem(await call('GET', `/api/v1/webhooks/${'a'.repeat(100)}`), 404);
      expectProblem(await call('GET', '/api/v1/webhooks/%ED%A0%80'), 400);
      expectProblem(await call('GET', '/api/v1/jobs/%C0'), 400);
    });

    it('an unknown path is still a 404', async () => {
      expectProblem(await call('DELETE', '/api/v1/no-such-thing'), 404);
    });
  });

  describe('the OpenAPI document is the validation', () => {
    let doc: any;
    beforeAll(async () => {
      doc = (await call('GET', '/api/v1/openapi.json')).body;
    });

    it('request bodies refuse unknown fields, integers are integers, limits are stated', () => {
      const schemas = doc.components.schemas;
      for (const name of ['CreateSchemaDto', 'CreateUserDto', 'CreateKeyDto', 'WebhookBodyDto', 'CreateSiteDto', 'CrawlOptionsDto']) {
        expect(schemas[name].additionalProperties).toBe(false);
      }
      const jobs = doc.paths['/api/v1/jobs'].get.parameters;
      const limit = jobs.find((p: { name: string }) => p.name === 'limit');
      const offset = jobs.find((p: { name: string }) => p.name === 'offset');
      expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
      expect(offset.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 1_000_000 });
      expect(schemas.CreateSchemaDto.properties.tags).toMatchObject({
        type: 'array',
        maxItems: 20,
        items: { minLength: 1, maxLength: 50 },
      });
      expect(schemas.CreateKeyDto.properties.expires_at).toMatchObject({ type: 'string', format: 'date-time' });
      expect(schemas.CreateKeyDto.properties.name.pattern).toBeDefined();
      expect(schemas.PutProviderKeyDto.properties.api_key).toMatchObject({ type: ['string', 'null'], maxLength: 4096 });
    });

    it('states the rules it can: exactly one of wait_for selector and ms, of a schedule every and cron; the batch query for every body (issue 40)', () => {
      const schemas = doc.components.schemas;
      expect(schemas.WaitForDto.oneOf).toEqual([{ required: ['selector'] }, { required: ['ms'] }]);
      expect(schemas.MonitorScheduleDto.oneOf).toEqual([{ required: ['every'] }, { required: ['cron'] }]);
      const batch = doc.paths['/api/v1/batch/extract'].post.parameters.filter((p: { in: string }) => p.in === 'query');
      expect(batch.map((p: { name: string }) => p.name)).toEqual(['schema_id', 'site_id', 'extraction_mode', 'webhook_id']);
      for (const p of batch) expect(p.description).not.toMatch(/only/i);
      // 502 names its problem type, and every 4xx/5xx the problem types of its status.
      const scrape = doc.paths['/api/v1/scrape'].post.responses;
      expect(scrape['502'].description).toContain('/problems/upstream-failure');
      expect(scrape['502'].description).toContain('fetch_error');
    });

    it('every operation lists every status it can answer, with the problem+json schema', () => {
      for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          const statuses = Object.keys(op.responses);
          expect([path, method, statuses.includes('500')]).toEqual([path, method, true]);
          if (op.security?.length)
            expect([path, method, ['401', '403', '429'].every((s) => statuses.includes(s))]).toEqual([path, method, true]);
          if (op.requestBody)
            expect([path, method, ['400', '413', '415', '422'].every((s) => statuses.includes(s))]).toEqual([path, method, true]);
          // A body sent to an operation that takes none is still read: its limit and content type answer too (issue 40).
          if (method !== 'get')
            expect([path, method, ['400', '413', '415'].every((s) => statuses.includes(s))]).toEqual([path, method, true]);
          for (const status of statuses.filter((s) => Number(s) >= 400)) {
            expect(op.responses[status].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
          }
        }
      }
    });
  });

  describe('authentication comes first, bodies only where an operation takes one (issue 40, items 6 and 11)', () => {
    let doc: any;
    let operations: Array<{ method: string; path: string; secured: boolean; body: boolean }>;
    const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '01J00000000000000000000000');
    beforeAll(async () => {
      doc = (await call('GET', '/api/v1/openapi.json')).body;
      operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
        Object.entries<any>(item).map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          secured: Boolean(op.security?.length),
          body: Boolean(op.requestBody),
        })),
      );
    });

    it('answers 401 to a request without a key whatever its body: content type, size or JSON (was a 415 on POST /warc-extract)', async () => {
      const secured = operations.filter((o) => o.secured);
      expect(secured.length).toBeGreaterThan(50);
      for (const { method, path } of secured) {
        // (fetch sends no body with a GET)
        const body = method === 'GET' ? {} : { rawBody: 'a,b\n1,2\n' };
        const odd = await http(env.baseUrl, method, concrete(path), { ...body, headers: { 'content-type': 'text/csv' } });
        expect([method, path, odd.status, odd.body?.type]).toEqual([method, path, 401, '/problems/unauthorized']);
      }
      const broken = await http(env.baseUrl, 'POST', '/api/v1/extract', {
        rawBody: '{"url":',
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(broken, 401);
      const huge = await http(env.baseUrl, 'PUT', '/api/v1/schemas/s1', {
        rawBody: JSON.stringify({ schema_yaml: 'x'.repeat(1_100_000) }),
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(huge, 401);
    });

    it('answers 403 before 415 to a key without the scope', async () => {
      const jobsOnly = (await call('POST', '/api/v1/keys', { body: { name: 'jobs only', scopes: ['jobs'] } })).body.key as string;
      const res = await http(env.baseUrl, 'POST', '/api/v1/warc-extract', {
        key: jobsOnly,
        rawBody: 'x',
        headers: { 'content-type': 'text/csv' },
      });
      expectProblem(res, 403);
      // With the scope, the content type is what is wrong.
      expectProblem(await call('POST', '/api/v1/warc-extract', { rawBody: 'x', headers: { 'content-type': 'text/csv' } }), 415);
    });

    it('takes an empty JSON body on every operation that takes no body (cancel, delete, ...), as no body', async () => {
      const bodyless = operations.filter((o) => !o.body && o.method !== 'GET');
      expect(bodyless.map((o) => `${o.method} ${o.path}`)).toEqual(
        expect.arrayContaining(['POST /api/v1/jobs/{id}/cancel', 'DELETE /api/v1/jobs/{id}', 'DELETE /api/v1/keys/{id}']),
      );
      for (const { method, path } of bodyless) {
        const res = await call(method, concrete(path), { rawBody: '', headers: { 'content-type': 'application/json' } });
        // An unknown id (or no such user, ...): the answer of the operation itself, never "the body is empty".
        expect([method, path, res.status === 400 ? res.body.detail : 'not a 400']).toEqual([method, path, 'not a 400']);
      }
    });

    it('cancels and deletes a real job sent with Content-Type: application/json and no body', async () => {
      const started = await call('POST', '/api/v1/test-jobs', { body: { steps: 50, step_ms: 100 } });
      expect(started.status).toBe(201);
      const id = started.body.id as string;
      const json = { rawBody: '', headers: { 'content-type': 'application/json' } };
      const cancelled = await call('POST', `/api/v1/jobs/${id}/cancel`, json);
      expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
      expect((await call('DELETE', `/api/v1/jobs/${id}`, json)).status).toBe(200);
    });

    it('still refuses an empty body where the operation takes one (400, the body is empty)', async () => {
      const res = await call('POST', '/api/v1/keys', { rawBody: '', headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400);
      expect(res.body.detail).toContain('empty');
    });
  });

  describe('cloud metadata endpoints with GLEANER_ALLOW_PRIVATE_NETWORKS=true', () => {
    // Nothing listens on these addresses in tests; the guard answers ssrf_blocked before a socket exists.
    it.each([
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://[::ffff:a9fe:a9fe]/',
    ])('an extract of %s is refused with ssrf_blocked', async (url) => {
      const res = await call('POST', '/api/v1/extract', {
        body: {
          url,
          schema: { title: 'string' },
          fetch_mode: 'static',
          llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-unused', base_url: 'http://127.0.0.1:9/v1' },
        },
      });
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.status).toBe(422);
      expect(res.body.error_category).toBe('ssrf_blocked');
    });
  });
});
