import { z } from 'zod';
import { Errors, type FieldError } from '@app/core';
import type { FetchMode } from './fetch-types';
import { COOKIE_VALUE_PATTERN, parseCookieHeader, TOKEN_PATTERN, type ScopedRequestData, type WaitFor } from './request-control';

/*
 * A request's fetch control on its way through a job (docs/scrape.md "Fetch control"): the API splits
 * it into what the job stores and what travels sealed in the queue message (headers, cookies); the
 * worker puts the two back together. Both halves are here, beside the fetchers that use the control.
 */

/** The request fields of fetch control (docs/scrape.md "Fetch control"), as validated by JobFetchFields. */
export interface FetchControlFields {
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  user_agent?: string;
  wait_for?: { selector?: string; ms?: number };
}

/** What a job stores of its fetch control: nothing secret (headers and cookies travel sealed, like a BYOK key). */
export interface StoredFetchControl {
  user_agent: string | null;
  wait_for: WaitFor | null;
}

const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);

export const storedFetchControlSchema = z
  .object({
    user_agent: absent(z.string()),
    wait_for: absent(z.union([z.object({ selector: z.string() }), z.object({ ms: z.number() })])),
  })
  .nullish()
  .transform((v) => v ?? null);

/** The names of the sealed secrets that carry the caller's headers and cookies to the worker. */
const HEADERS_SECRET = 'fetch_headers';
const COOKIES_SECRET = 'fetch_cookies';

/**
 * Checks what the DTO cannot state and splits the control into what the job may store and what
 * travels sealed: a `Cookie` header joins `cookies` (the field wins on a name given twice), a
 * `User-Agent` header is `user_agent` (422 when both are given), `wait_for` names exactly one of
 * `selector` and `ms` and needs the browser (422 with `fetch_mode: static`).
 */
export function splitFetchControl(
  fields: FetchControlFields,
  fetchMode: FetchMode,
  at = 'body',
): { stored: StoredFetchControl | null; secrets: Record<string, string> } {
  const problems: FieldError[] = [];
  const headers: Record<string, string> = {};
  let cookies: Record<string, string> = {};
  let userAgent = fields.user_agent ?? null;
  for (const [name, value] of Object.entries(fields.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      const parsed = parseCookieHeader(value);
      const bad = Object.entries(parsed).find(([n, v]) => !TOKEN_PATTERN.test(n) || !COOKIE_VALUE_PATTERN.test(v));
      if (bad) problems.push({ location: `${at}.headers`, message: `the Cookie header's ${bad[0].slice(0, 100)} is not a valid cookie` });
      else cookies = { ...cookies, ...parsed };
    } else if (lower === 'user-agent') {
      if (fields.user_agent !== undefined) {
        problems.push({ location: `${at}.user_agent`, message: 'give the user agent once: in user_agent or as a User-Agent header' });
      } else userAgent = value;
    } else headers[name] = value;
  }
  cookies = { ...cookies, ...(fields.cookies ?? {}) };

  let waitFor: WaitFor | null = null;
  if (fields.wait_for) {
    const { selector, ms } = fields.wait_for;
    if ((selector === undefined) === (ms === undefined)) {
      problems.push({ location: `${at}.wait_for`, message: 'give exactly one of selector and ms' });
    } else if (fetchMode === 'static') {
      problems.push({ location: `${at}.wait_for`, message: 'needs the browser: use fetch_mode auto (which then renders) or dynamic' });
    } else waitFor = selector !== undefined ? { selector } : { ms: ms! };
  }
  if (problems.length > 0) throw Errors.validation(problems);

  const secrets: Record<string, string> = {};
  if (Object.keys(headers).length > 0) secrets[HEADERS_SECRET] = JSON.stringify(headers);
  if (Object.keys(cookies).length > 0) secrets[COOKIES_SECRET] = JSON.stringify(cookies);
  const stored = userAgent !== null || waitFor !== null ? { user_agent: userAgent, wait_for: waitFor } : null;
  return { stored, secrets };
}

/** The worker's side: the stored control plus the headers and cookies opened from the queue message. */
export function fetchControlFor(
  stored: StoredFetchControl | null,
  secrets: Record<string, string>,
): { scoped?: ScopedRequestData; userAgent?: string; waitFor?: WaitFor } {
  const headers = parseSecretMap(secrets[HEADERS_SECRET]);
  const cookies = parseSecretMap(secrets[COOKIES_SECRET]);
  const scoped = Object.keys(headers).length + Object.keys(cookies).length > 0 ? { headers, cookies } : undefined;
  return {
    ...(scoped ? { scoped } : {}),
    ...(stored?.user_agent ? { userAgent: stored.user_agent } : {}),
    ...(stored?.wait_for ? { waitFor: stored.wait_for } : {}),
  };
}

/** Every header and cookie value of a request, for scrubbing from anything recorded (debug captures). */
export function fetchSecretValues(secrets: Record<string, string>): string[] {
  return [...Object.values(parseSecretMap(secrets[HEADERS_SECRET])), ...Object.values(parseSecretMap(secrets[COOKIES_SECRET]))].filter(
    (v) => v.length >= 4,
  );
}

function parseSecretMap(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
