import { Transform } from 'class-transformer';
import { Matches, registerDecorator, ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Validation rules shared by the DTOs whose every constraint is also written into the OpenAPI
 * document (apps/api/src/openapi-constraints.ts reads the same class-validator metadata), so the
 * document and the validation come from one source.
 */

/** Printable text: no C0/C1 control characters (names, tags, labels). Lone surrogates never get this far (json-body.ts). */
export const PRINTABLE_PATTERN = /^[^\u0000-\u001f\u007f-\u009f]*$/;

export function IsPrintable(options?: ValidationOptions): PropertyDecorator {
  return Matches(PRINTABLE_PATTERN, { message: 'must not contain control characters', ...options });
}

/**
 * Query parameters arrive as strings: only a plain decimal integer literal becomes a number, anything
 * else ("", "1.5", "1e3", "0x10", " 7") stays a string and fails IsInt (no silent coercion).
 */
export function QueryInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : value));
}

/** Query booleans: exactly `true` or `false`. */
export function QueryBoolean(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value));
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 `date-time` (JSON Schema `format: date-time`): calendar-valid, with a time zone. */
export function isRfc3339DateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day > days || hour > 23 || minute > 59 || second > 60) return false;
  if (m[8].length > 1 && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  return !Number.isNaN(Date.parse(value.toUpperCase()));
}

export function IsRfc3339(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isRfc3339', validator: { validate: isRfc3339DateTime, defaultMessage: () => 'must be an RFC 3339 timestamp' } },
    options,
  );
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date `YYYY-MM-DD` (JSON Schema `format: date`). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE.exec(value);
  return m !== null && isRfc3339DateTime(`${value}T00:00:00Z`);
}

/** RFC 3339 `date-time` or a calendar date (documented as `anyOf: [{format: date}, {format: date-time}]`). */
export function IsDateOrDateTime(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDateOrDateTime',
      validator: {
        validate: (value: unknown) => isCalendarDate(value) || isRfc3339DateTime(value),
        defaultMessage: () => 'must be an RFC 3339 timestamp or a date (YYYY-MM-DD)',
      },
    },
    options,
  );
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const TOP_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const H16 = '[0-9A-Fa-f]{1,4}';
const IPV6 = [
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  `(?:${H16}:){1,6}:${H16}`,
  `(?:${H16}:){1,5}(?::${H16}){1,2}`,
  `(?:${H16}:){1,4}(?::${H16}){1,3}`,
  `(?:${H16}:){1,3}(?::${H16}){1,4}`,
  `(?:${H16}:){1,2}(?::${H16}){1,5}`,
  `${H16}:(?::${H16}){1,6}`,
  `:(?::${H16}){1,7}`,
  '::',
].join('|');
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)';
/** RFC 3986 path-abempty, query and fragment: unreserved, sub-delims, ':' '@' and %-escapes only. */
const PCHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})";
const PATH_QUERY = `(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?`;
const REST = `${PATH_QUERY}(?:#(?:${PCHAR}|[/?])*)?`;
const ORIGIN = `[Hh][Tt][Tt][Pp][Ss]?://(?:(?:${LABEL}\\.)*${TOP_LABEL}\\.?|(?:${OCTET}\\.){3}${OCTET}|\\[(?:${IPV6})\\])(?::${PORT})?`;

/**
 * An absolute http(s) URL without credentials, as a pattern the document states and the validation
 * enforces: host names (a last label starting with a letter), dotted-quad IPv4 or bracketed IPv6,
 * an optional port 0-65535, an RFC 3986 path, query and fragment. Every match is also a valid WHATWG URL.
 */
export const HTTP_URL_PATTERN = new RegExp(`^${ORIGIN}${REST}$`);

/** The same URL without a fragment (an endpoint the server calls: a fragment would never reach it). */
export const HTTP_URL_NO_FRAGMENT_PATTERN = new RegExp(`^${ORIGIN}${PATH_QUERY}$`);

/** HTTP_URL_NO_FRAGMENT_PATTERN or the empty string (a field where "" resets a setting). */
export const EMPTY_OR_HTTP_URL_NO_FRAGMENT_PATTERN = new RegExp(`^(?:${ORIGIN}${PATH_QUERY})?$`);

/** Absolute http(s) URL, at most 2048 characters, without credentials. Returns a reason when invalid. */
export function checkHttpUrl(value: string): string | null {
  if (value.length > 2048) return 'must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (!url.hostname) return 'must have a host';
  return null;
}

/** A URL field: matches HTTP_URL_PATTERN (what the document states) and passes checkHttpUrl. */
export function IsHttpUrl(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && HTTP_URL_PATTERN.test(value) && checkHttpUrl(value) === null,
        defaultMessage: (args) =>
          typeof args?.value === 'string'
            ? (checkHttpUrl(args.value) ??
              'must be an absolute http(s) URL: a host name, IPv4 or [IPv6] address, an optional port, then RFC 3986 characters (percent-encode the rest)')
            : 'must be a string',
      },
    });
}
