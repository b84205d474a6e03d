import { z } from 'zod';
import { Errors, type AppError } from '@app/core';
import { SCHEMA_MISMATCH_DETAIL } from '@app/http';
import { firecrawlError, isNotSupportedRoute, parseWith, routeNotSupported, V2_SCHEMA_MISMATCH } from './errors';
import { isGleanerUrl, urlSchema } from './scrape-options';

const refusal = (schema: z.ZodType, value: unknown): AppError => {
  try {
    parseWith(schema, value);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a refusal');
};

describe('isNotSupportedRoute (the /v2 routes that answer 501 to any body)', () => {
  it.each([
    '/v2/search',
    '/v2/search/research',
    '/v2/agent',
    '/v2/agent/123',
    '/v2/browser/sessions',
    '/v2/parse',
    '/v2/parse?x=1',
    '/v2/feedback',
    '/v2/scrape/abc/interact',
  ])('%s is one', (url) => expect(isNotSupportedRoute(url)).toBe(true));

  it.each(['/v2/scrape', '/v2/crawl', '/v2/parser', '/v2/searching', '/v2/scrape/abc', '/api/v1/parse', '/v2/parse/extra'])(
    '%s is not',
    (url) => expect(isNotSupportedRoute(url)).toBe(false),
  );
});

describe('parseWith (a /v2 body checked by its zod schema)', () => {
  it('returns the parsed value, an absent body as {}', () => {
    expect(parseWith(z.looseObject({ a: z.number().optional() }), undefined)).toEqual({});
    expect(parseWith(z.looseObject({ a: z.number() }), { a: 1, origin: 'sdk' })).toEqual({ a: 1, origin: 'sdk' });
  });

  it('a rule the document states is refused with the schema-mismatch detail, each field in Firecrawl names', () => {
    const error = refusal(z.looseObject({ url: urlSchema, limit: z.number().int() }), { url: 'ftp://x', limit: 1.5 });
    expect(error.slug).toBe('validation-error');
    const body = firecrawlError(error, '/v2/crawl', 'req-1');
    expect(body.status).toBe(400);
    expect(body.body.error.startsWith(V2_SCHEMA_MISMATCH)).toBe(true);
    expect(body.body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'url' }), expect.objectContaining({ path: 'limit' })]),
    );
  });

  it('a refinement only (a rule no document states) keeps the generic detail', () => {
    const error = refusal(z.looseObject({ a: z.string().refine((v) => v !== 'no', { message: 'not that' }) }), { a: 'no' });
    const body = firecrawlError(error, '/v2/scrape', 'req-2');
    expect(body.body.error).not.toContain('does not match the API schema');
    expect(body.body.error).toContain('a: not that');
  });
});

describe('firecrawlError', () => {
  it('a route not supported is 501 NOT_SUPPORTED in Firecrawl’s shape', () => {
    expect(firecrawlError(routeNotSupported('/v2/search'), '/v2/search', 'r')).toMatchObject({
      status: 501,
      body: { success: false, code: 'NOT_SUPPORTED', error: expect.stringMatching(/not supported by this server/) },
    });
  });

  it('Gleaner’s own schema mismatch (its DTO pipe) reads as /v2’s', () => {
    const problem = Errors.validation([{ location: 'body.options.max_pages', message: 'too big' }], SCHEMA_MISMATCH_DETAIL);
    const body = firecrawlError(problem, '/v2/crawl', 'r');
    expect(body.body.error).toBe(`${V2_SCHEMA_MISMATCH} limit: too big`);
  });
});

describe('urlSchema and isGleanerUrl (Gleaner’s own URL rule)', () => {
  it.each(['https://example.com', 'http://127.0.0.1:8080/a?b=c', 'HTTPS://shop.test/p#x'])('takes %s', (url) => {
    expect(urlSchema.safeParse(url).success).toBe(true);
    expect(isGleanerUrl(url)).toBe(true);
  });

  it.each(['', 'example.com', 'ftp://example.com', 'https://user:pw@example.com', 'https://exa mple.com', 'https://'])(
    'refuses %j',
    (url) => {
      expect(urlSchema.safeParse(url).success).toBe(false);
      expect(isGleanerUrl(url)).toBe(false);
    },
  );
});
