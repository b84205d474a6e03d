import { z } from 'zod';
import { Errors, type FieldError } from '@app/core';
import type { FetchMode } from '../fetch-types';
import type { ModeFetchOptions } from '../fetcher';
import { configuredProxyPools } from '../proxy-pool/configured-pools';
import { NO_PROXY } from '../proxy-pool/proxy-pools-config';
import { COOKIE_VALUE_PATTERN, parseCookieHeader, TOKEN_PATTERN, type WaitFor } from '../request-control';

/*
 * Fetch control (docs/scrape.md "Fetch control"): the caller's headers, cookies, User-Agent and what a browser
 * fetch waits for, from the request to the page. This module owns every step of the way: the fields (with
 * their DTO rules and words, fetch-control.properties.ts), the split of a request's fields into what its job
 * stores and what travels sealed with it (like a BYOK key: in the queue message, never stored, logged or
 * shown), and the opening of both halves into the one typed value a page's fetch takes (FetchControl), scoped
 * to the host its headers and cookies belong to. A new fetch option is added here and in the properties file,
 * and the fetcher reads it from FetchOptions.
 */

/** The request fields of fetch control, as a request or a crawl's options give them (validated by the DTO group). */
export interface FetchControlFields {
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  user_agent?: string;
  wait_for?: { selector?: string; ms?: number };
  /** An operator's proxy pool by name, or `none` (docs/proxies.md); never a proxy URL. */
  proxy?: string;
  /** The caller's auth profile by id (docs/auth-profiles.md): the page is fetched with its session. */
  auth_profile?: string;
}

/** What an absent option is under crawl options (every fetch control option: none). */
export const FETCH_CONTROL_DEFAULTS = {
  headers: null,
  cookies: null,
  user_agent: null,
  wait_for: null,
  proxy: null,
  auth_profile: null,
} as const satisfies Record<keyof FetchControlFields, null>;

/** The fetch control options as a layer of crawl options gives them (a request's, a site's): absent or null is unset. */
export type FetchControlLayer = { [K in keyof FetchControlFields]?: FetchControlFields[K] | null };

/** The fetch control options of resolved crawl options: every one present, null when unset. */
export type ResolvedFetchControl = { [K in keyof FetchControlFields]-?: NonNullable<FetchControlFields[K]> | null };

/** The fetch control options of resolved crawl options: the first layer's value of each (`first`), else null. */
export function resolveFetchControl(
  first: <K extends keyof FetchControlFields>(key: K) => NonNullable<FetchControlFields[K]> | null,
): ResolvedFetchControl {
  return {
    headers: first('headers'),
    cookies: first('cookies'),
    user_agent: first('user_agent'),
    wait_for: first('wait_for'),
    proxy: first('proxy'),
    auth_profile: first('auth_profile'),
  };
}

/** What a job stores of its fetch control: nothing secret (headers and cookies travel sealed). */
export interface StoredFetchControl {
  user_agent: string | null;
  wait_for: WaitFor | null;
  /** Present only when a pool was named (a job without one keeps the layout it always had). */
  proxy?: string;
  /** Present only when an auth profile was named (its id: the profile's credentials and session stay in it). */
  auth_profile?: string;
}

const absent = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);

export const storedFetchControlSchema = z
  .object({
    user_agent: absent(z.string()),
    wait_for: absent(z.union([z.object({ selector: z.string() }), z.object({ ms: z.number() })])),
    proxy: z.string().optional(),
    auth_profile: z.string().optional(),
  })
  .nullish()
  .transform((v) => v ?? null);

/** The names of the sealed secrets that carry the caller's headers and cookies to the worker. */
const HEADERS_SECRET = 'fetch_headers';
const COOKIES_SECRET = 'fetch_cookies';

/** A request's fetch control split: what its job stores, and the secrets that travel sealed with it. */
export interface SplitFetchControl {
  stored: StoredFetchControl | null;
  secrets: Record<string, string>;
}

/**
 * Checks what the DTO cannot state and splits the control into what the job may store and what
 * travels sealed: a `Cookie` header joins `cookies` (the field wins on a name given twice), a
 * `User-Agent` header is `user_agent` (422 when both are given), `wait_for` names exactly one of
 * `selector` and `ms` and needs the browser (422 with `fetch_mode: static`). `at`: where the fields are
 * (`body`, or `body.options` under crawl options).
 */
export function splitFetchControl(fields: FetchControlFields, fetchMode: FetchMode, at = 'body'): SplitFetchControl {
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
  const proxyProblem = fields.proxy !== undefined ? configuredProxyPools().problem(fields.proxy, `${at}.proxy`) : null;
  if (proxyProblem) problems.push(proxyProblem);
  if (problems.length > 0) throw Errors.validation(problems);

  const secrets: Record<string, string> = {};
  if (Object.keys(headers).length > 0) secrets[HEADERS_SECRET] = JSON.stringify(headers);
  if (Object.keys(cookies).length > 0) secrets[COOKIES_SECRET] = JSON.stringify(cookies);
  const { proxy, auth_profile } = fields;
  const stored =
    userAgent !== null || waitFor !== null || proxy !== undefined || auth_profile !== undefined
      ? {
          user_agent: userAgent,
          wait_for: waitFor,
          ...(proxy !== undefined ? { proxy } : {}),
          ...(auth_profile !== undefined ? { auth_profile } : {}),
        }
      : null;
  return { stored, secrets };
}

/**
 * Crawl options (or any options carrying the fetch control fields, FetchControlLayer) split as a request's
 * fields are: the options keep the stored part in their own fields, headers and cookies leave them for the
 * secrets. `at`: where the options are in the request.
 */
export function splitOptionsFetchControl<T extends FetchControlLayer & { fetch_mode: FetchMode }>(
  options: T,
  at: string,
): { options: T; secrets: Record<string, string> } {
  const fields: FetchControlFields = {
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.cookies ? { cookies: options.cookies } : {}),
    ...(options.user_agent ? { user_agent: options.user_agent } : {}),
    ...(options.wait_for ? { wait_for: options.wait_for } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
    ...(options.auth_profile ? { auth_profile: options.auth_profile } : {}),
  };
  const { stored, secrets } = splitFetchControl(fields, options.fetch_mode, at);
  return {
    options: { ...options, headers: null, cookies: null, user_agent: stored?.user_agent ?? null, wait_for: stored?.wait_for ?? null },
    secrets,
  };
}

/** An auth profile named by a job, with the job's owner (a profile is found only among its owner's). */
export interface AuthProfileRef {
  id: string;
  owner: string;
  /** The job whose page uses it: a login failure that makes the profile failing is announced on it (`auth_profile.failing`). */
  job?: string;
}

/**
 * The one typed value a page's fetch takes from fetch control: the fetcher's own options (FetchOptions), and the
 * auth profile whose session the page loader attaches (docs/auth-profiles.md).
 */
export type FetchControl = Pick<ModeFetchOptions, 'scoped' | 'userAgent' | 'waitFor' | 'timeoutMs' | 'proxyPool'> & {
  authProfile?: AuthProfileRef;
};

/**
 * Where a job's headers and cookies may go: each fetched URL's own host (no `host`: a one-page job, a batch,
 * whose caller named every URL), or one host for every page of the job (a crawl's seed host: its links may lead
 * elsewhere; an analysis's page host: its linked pages get none).
 */
export interface FetchScope {
  host?: string;
  /** The job's owner: the user whose auth profile the job may name. */
  owner?: string;
  /** The job itself, by id (where a profile's `auth_profile.failing` is announced). */
  job?: string;
}

/** The stored half as any stored options keep it (a job's `fetch_control`, a crawl's options): read leniently. */
export interface StoredFetchFields {
  user_agent?: string | null;
  wait_for?: { selector?: string; ms?: number } | null;
  proxy?: string | null;
  auth_profile?: string | null;
}

/** The worker's side: the stored control and the headers and cookies opened from the queue message, for one page's fetch. */
export function openFetchControl(stored: StoredFetchFields | null, secrets: Record<string, string>, scope: FetchScope = {}): FetchControl {
  const headers = parseSecretMap(secrets[HEADERS_SECRET]);
  const cookies = parseSecretMap(secrets[COOKIES_SECRET]);
  const scoped = Object.keys(headers).length + Object.keys(cookies).length > 0;
  const waitFor = waitForOf(stored?.wait_for ?? null);
  return {
    ...(scoped ? { scoped: { headers, cookies, ...(scope.host !== undefined ? { host: scope.host } : {}) } } : {}),
    ...(stored?.user_agent ? { userAgent: stored.user_agent } : {}),
    ...(waitFor ? { waitFor } : {}),
    ...(stored?.proxy && stored.proxy !== NO_PROXY ? { proxyPool: stored.proxy } : {}),
    ...(stored?.auth_profile
      ? { authProfile: { id: stored.auth_profile, owner: ownerOf(scope), ...(scope.job ? { job: scope.job } : {}) } }
      : {}),
  };
}

/**
 * A request's fetch control opened where it is answered, with no job in between (POST /map): nothing is stored
 * or sealed, its headers and cookies go as given (scoped to `scope.host`), the rest as a job's is opened.
 */
export function openRequestControl(fields: FetchControlFields, scope: FetchScope = {}): FetchControl {
  const { headers, cookies, ...stored } = fields;
  const scoped =
    headers || cookies
      ? { headers: headers ?? {}, cookies: cookies ?? {}, ...(scope.host !== undefined ? { host: scope.host } : {}) }
      : null;
  const { scoped: _none, ...opened } = openFetchControl(stored, {}, scope);
  return { ...(scoped ? { scoped } : {}), ...opened };
}

/**
 * The fetch control options a stored layer (a site's, a monitor's, a job's crawl options) keeps even when this
 * process would refuse them: a proxy pool the operator removed since stays named, so its pages fail as a
 * fetch_error naming the pool instead of going out directly, which is what the pool was there to prevent.
 */
export function keptStoredFetchControl(present: Record<string, unknown>): FetchControlFields {
  return typeof present.proxy === 'string' && present.proxy !== '' ? { proxy: present.proxy } : {};
}

/** A job that names an auth profile opens its control with its owner: a page is never fetched without the session it asked for. */
function ownerOf(scope: FetchScope): string {
  if (scope.owner === undefined) throw new Error('a fetch control naming an auth profile is opened with its job owner');
  return scope.owner;
}

/** Every header and cookie value of a request, for scrubbing from anything recorded (debug captures). */
export function fetchSecretValues(secrets: Record<string, string>): string[] {
  return [...Object.values(parseSecretMap(secrets[HEADERS_SECRET])), ...Object.values(parseSecretMap(secrets[COOKIES_SECRET]))].filter(
    (v) => v.length >= 4,
  );
}

/** A stored wait_for (split checked it names exactly one of the two). */
function waitForOf(raw: { selector?: string; ms?: number } | null): WaitFor | null {
  if (raw?.selector !== undefined) return { selector: raw.selector };
  if (raw?.ms !== undefined) return { ms: raw.ms };
  return null;
}

function parseSecretMap(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
