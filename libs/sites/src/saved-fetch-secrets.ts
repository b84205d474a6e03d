import { Errors, type FieldError, type SecretSealer } from '@app/core';
import { openFetchControl, splitFetchControl } from '@app/fetch';

/*
 * The headers and cookies a saved site keeps under its crawl options (docs/api.md "Saved sites"): the
 * names in the clear (a response shows them, each value masked), the values sealed (AES-256-GCM under
 * GLEANER_SECRET, as a monitor's model key and a job's request secrets are). Framework-free: the service
 * gives the sealer.
 */

/**
 * What a response shows for every stored value. It is beyond Latin-1, so never a valid header or cookie
 * value: sent back in an update it can only mean "keep the stored value of this name".
 */
export const SECRET_MASK = '••••';

export interface FetchSecretMaps {
  headers: Record<string, string>;
  cookies: Record<string, string>;
}

/** The fields a saved record keeps for them (both null when it keeps none). */
export interface StoredFetchSecrets {
  fetch_secret_names: { headers: string[]; cookies: string[] } | null;
  fetch_secrets_sealed: string | null;
}

/** `headers`, `cookies` and `user_agent` as a create or update gives them (absent: keep; null: remove). */
export interface FetchSecretFields {
  headers?: Record<string, string> | null;
  cookies?: Record<string, string> | null;
  user_agent?: string | null;
}

export const NO_FETCH_SECRETS: Readonly<FetchSecretMaps> = Object.freeze({ headers: {}, cookies: {} });

const lower = (name: string) => name.toLowerCase();

/**
 * The headers and cookies a record keeps after a create (`current` empty) or an update: an absent map
 * keeps the stored one, `null` removes it, a map replaces it, and in that map a value that is the mask
 * keeps the stored value of that name (a header's name matched in any case; a mask with nothing stored
 * under its name is a 422 at the field). The result is normalised as a request's fetch control is
 * (splitFetchControl): a `Cookie` header joins the cookies, a `User-Agent` header becomes `userAgent`
 * (given both, a 422 at `<at>.user_agent`).
 */
export function nextFetchSecrets(
  current: FetchSecretMaps,
  given: FetchSecretFields,
  at: string,
): { secrets: FetchSecretMaps; userAgent: string | null } {
  const problems: FieldError[] = [];
  const storedHeader = (name: string) => Object.entries(current.headers).find(([stored]) => lower(stored) === lower(name))?.[1];
  const headers = unmask(given.headers, current.headers, storedHeader, `${at}.headers`, 'header', problems);
  const cookies = unmask(given.cookies, current.cookies, (name) => current.cookies[name], `${at}.cookies`, 'cookie', problems);
  if (problems.length > 0) throw Errors.validation(problems);
  const control = splitFetchControl(
    { headers, cookies, ...(given.user_agent !== undefined && given.user_agent !== null ? { user_agent: given.user_agent } : {}) },
    'auto',
    at,
  );
  const opened = openFetchControl(null, control.secrets).scoped;
  return {
    secrets: opened ? { headers: opened.headers, cookies: opened.cookies } : { headers: {}, cookies: {} },
    userAgent: control.stored?.user_agent ?? null,
  };
}

function unmask(
  given: Record<string, string> | null | undefined,
  current: Record<string, string>,
  stored: (name: string) => string | undefined,
  location: string,
  kind: 'header' | 'cookie',
  problems: FieldError[],
): Record<string, string> {
  if (given === undefined) return { ...current };
  if (given === null) return {};
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== SECRET_MASK) {
      out[name] = value;
      continue;
    }
    const kept = stored(name);
    if (kept === undefined)
      problems.push({ location, message: `${name} is the mask of a stored value, but no ${kind} ${name} is stored: give its value` });
    else out[name] = kept;
  }
  return out;
}

/**
 * Crawl options as a saved record keeps them (a site's `crawl_options`, a monitor's `options`): the
 * options in the clear without `headers` and `cookies`, which are sealed (nextFetchSecrets says how a
 * create or update changes them). On an update (`current`), absent headers and cookies leave the stored
 * fields as they are (no field is returned for them), and the stored values are opened only when a mask
 * or an absent map keeps some of them.
 */
export function savedCrawlOptions(
  sealer: SecretSealer,
  given: Record<string, unknown> & FetchSecretFields,
  current: Partial<StoredFetchSecrets> | null,
  at: string,
): Partial<StoredFetchSecrets> & { options: Record<string, unknown> } {
  const { headers, cookies, ...rest } = given;
  if (current && headers === undefined && cookies === undefined) return { options: rest };
  const keeps = (map: Record<string, string> | null | undefined) => map === undefined || Object.values(map ?? {}).includes(SECRET_MASK);
  const stored = current && (keeps(headers) || keeps(cookies)) ? openFetchSecrets(sealer, current) : NO_FETCH_SECRETS;
  const { secrets, userAgent } = nextFetchSecrets(stored, { headers, cookies, user_agent: given.user_agent }, at);
  return { options: { ...rest, ...(userAgent !== null ? { user_agent: userAgent } : {}) }, ...sealFetchSecrets(sealer, secrets) };
}

/** The record's fields for these secrets: sealed values and clear names, or both null when there are none. */
export function sealFetchSecrets(sealer: SecretSealer, secrets: FetchSecretMaps): StoredFetchSecrets {
  const names = { headers: Object.keys(secrets.headers), cookies: Object.keys(secrets.cookies) };
  if (names.headers.length + names.cookies.length === 0) return { fetch_secret_names: null, fetch_secrets_sealed: null };
  return { fetch_secret_names: names, fetch_secrets_sealed: sealer.seal(JSON.stringify(secrets)) };
}

/** The record's secrets opened (none when it keeps none). */
export function openFetchSecrets(sealer: SecretSealer, record: Partial<StoredFetchSecrets>): FetchSecretMaps {
  if (!record.fetch_secrets_sealed) return { headers: {}, cookies: {} };
  const parsed = JSON.parse(sealer.open(record.fetch_secrets_sealed)) as Partial<FetchSecretMaps>;
  return { headers: stringMap(parsed.headers), cookies: stringMap(parsed.cookies) };
}

/** What a response shows: each stored name with the mask for its value; a map with no entries is left out. */
export function maskedFetchSecrets(record: Partial<StoredFetchSecrets>): {
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
} {
  const names = record.fetch_secret_names;
  const mask = (list: string[] | undefined) =>
    list && list.length > 0 ? Object.fromEntries(list.map((name) => [name, SECRET_MASK])) : undefined;
  const headers = mask(names?.headers);
  const cookies = mask(names?.cookies);
  return { ...(headers ? { headers } : {}), ...(cookies ? { cookies } : {}) };
}

function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
