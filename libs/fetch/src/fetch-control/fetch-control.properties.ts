import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { checkCssSelector } from '@app/content';
import { COOKIE_VALUE_PATTERN, forbiddenHeaderReason, HEADER_VALUE_PATTERN, TOKEN_PATTERN } from '../request-control';
import { configuredProxyPools } from '../proxy-pool/configured-pools';
import type { FetchControlFields } from './fetch-control';
import { ExactlyOneOf, HasUsableKeys, IsStringMap, type StringMapRule } from '@app/http';

/*
 * Fetch control (docs/scrape.md "Fetch control"): one definition of each field's rule and words, and the group
 * of them a DTO embeds (WithFetchControl): at the top level of POST /extract and /scrape, under the crawl
 * options of crawls, batches, saved sites and monitors.
 */

export const HEADER_MAP_RULE: StringMapRule = {
  keyPattern: TOKEN_PATTERN,
  valuePattern: HEADER_VALUE_PATTERN,
  maxEntries: 50,
  maxValueLength: 8192,
  keyLabel: 'header name',
};

export const COOKIE_MAP_RULE: StringMapRule = {
  keyPattern: TOKEN_PATTERN,
  valuePattern: COOKIE_VALUE_PATTERN,
  maxEntries: 50,
  maxValueLength: 4096,
  keyLabel: 'cookie name',
};

/** The longest fixed wait (`wait_for.ms`). */
export const MAX_WAIT_MS = 30_000;

/** A CSS selector the converter can run (crawl options, wait_for). */
export function IsCssSelector(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCssSelector',
      target: target.constructor,
      propertyName,
      options: { message: 'must be a valid CSS selector', ...options },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          try {
            checkCssSelector(value);
            return true;
          } catch {
            return false;
          }
        },
      },
    });
}

/** What a browser fetch waits for before the page is read: give exactly one of the two. */
@ExactlyOneOf('selector', 'ms')
export class WaitForDto {
  @ApiPropertyOptional({
    example: '#results .item',
    description: 'A CSS selector: the fetch waits until such an element is in the page (a timeout if it never is).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  selector?: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_WAIT_MS,
    example: 1500,
    description: 'A fixed wait in milliseconds after the page loaded.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_WAIT_MS)
  ms?: number;
}

/** `headers`: request headers for the page's host only. */
export function FetchHeadersProperty(scope = "the page's host") {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'object',
      additionalProperties: { type: 'string' },
      example: { Authorization: 'Bearer ...', 'Accept-Language': 'de' },
      description: `Request headers for ${scope} (never sent to another host, not even after a redirect; never stored, logged or shown). A \`Cookie\` header is read as \`cookies\`, a \`User-Agent\` header as \`user_agent\`. Refused: Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive, TE, Trailer, Upgrade, Expect, Accept-Encoding, HTTP2-Settings, Proxy-*.`,
    }),
    IsOptional(),
    IsObject(),
    IsStringMap(HEADER_MAP_RULE),
    HasUsableKeys(forbiddenHeaderReason),
  );
}

/** `cookies`: name → value, for the page's host only. */
export function FetchCookiesProperty(scope = "the page's host") {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'object',
      additionalProperties: { type: 'string' },
      example: { session: 'abc123' },
      description: `Cookies (name → value) for ${scope} only, in both fetch modes (never stored, logged or shown).`,
    }),
    IsOptional(),
    IsObject(),
    IsStringMap(COOKIE_MAP_RULE),
    HasUsableKeys(),
  );
}

/** `user_agent`: replaces the generated User-Agent. */
export function UserAgentProperty() {
  return applyDecorators(
    ApiPropertyOptional({
      example: 'Mozilla/5.0 (compatible; MyAgent/1.0)',
      description: 'Replaces the generated User-Agent on every request of the fetch.',
    }),
    IsOptional(),
    IsString(),
    Length(1, 512),
    Matches(HEADER_VALUE_PATTERN, { message: 'must be a header value: no line breaks or control characters, nothing beyond Latin-1' }),
  );
}

/** `wait_for`: what a browser fetch waits for. */
export function WaitForProperty() {
  return applyDecorators(
    ApiPropertyOptional({
      type: WaitForDto,
      description:
        'Browser fetches: wait for an element (`selector`) or a time (`ms`) before reading the page. With `fetch_mode: auto` the page is rendered; with `static` it is a 422.',
    }),
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => WaitForDto),
  );
}

/** `proxy`: an operator's proxy pool by name, or `none`; an unknown name is a 422 that lists the known ones. */
export function ProxyProperty() {
  return applyDecorators(
    ApiPropertyOptional({
      example: 'residential',
      description:
        "The operator's proxy pool the page's requests go through, by name (GLEANER_PROXY_POOLS; docs/proxies.md), or `none` for a direct fetch whatever a saved site says. Never a proxy URL. An unknown name is a 422 that lists the known pools.",
    }),
    IsOptional(),
    IsString(),
    IsKnownProxyPool(),
  );
}

/** `auth_profile`: one of the caller's auth profiles by id (its ownership is checked where the job is made). */
export function AuthProfileProperty() {
  return applyDecorators(
    ApiPropertyOptional({
      example: '01JD0000000000000000000000',
      description:
        "One of your auth profiles by id (docs/auth-profiles.md): the page is fetched with the profile's session, sent to the profile's hosts only, logging in (again) by itself when the session is missing, old or logged out. An id that is not one of yours is a 422.",
    }),
    IsOptional(),
    IsString(),
    Length(1, 64),
    Matches(/^[0-9A-Za-z_-]+$/, { message: 'must be an auth profile id' }),
  );
}

function IsKnownProxyPool(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isKnownProxyPool',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: (args) => configuredProxyPools().problem(String(args.value), '')?.message ?? 'must name a proxy pool',
      },
      validator: { validate: (value: unknown) => typeof value === 'string' && configuredProxyPools().problem(value, '') === null },
    });
}

/** A DTO class a group of fields is added to (its own fields come first in the document). */
type DtoBase = new (...args: any[]) => object;

/**
 * The fetch control fields as one group (docs/scrape.md "Fetch control"), added to a DTO after its base's
 * fields: `headers` and `cookies` for `scope` (the host they are sent to), `user_agent`, `wait_for`, `proxy`, `auth_profile`.
 */
export function WithFetchControl<TBase extends DtoBase>(Base: TBase, scope = "the page's host") {
  class FetchControlGroup extends Base implements FetchControlFields {
    @FetchHeadersProperty(scope)
    headers?: Record<string, string>;

    @FetchCookiesProperty(scope)
    cookies?: Record<string, string>;

    @UserAgentProperty()
    user_agent?: string;

    @WaitForProperty()
    wait_for?: WaitForDto;

    @ProxyProperty()
    proxy?: string;

    @AuthProfileProperty()
    auth_profile?: string;
  }
  return FetchControlGroup;
}
