import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsObject, IsOptional } from 'class-validator';
import { COOKIE_MAP_RULE, forbiddenHeaderReason, HEADER_MAP_RULE } from '@app/fetch';
import { HasUsableKeys, IsStringMap, type StringMapRule } from '@app/http';
import { SECRET_MASK } from '../saved-fetch-secrets';
import { CrawlOptionsDto } from './crawl-options.dto';

/*
 * Crawl options as a saved site (or monitor) takes and shows them (docs/api.md "Saved sites"): the crawl
 * options, with `headers` and `cookies` kept sealed. A request may send back the mask a response shows
 * for a value, meaning "keep it"; a response shows every stored value as the mask.
 */

const PARTIAL =
  'Absent in an update: the stored ones are kept; `null`: removed; a map: replaces them, and a value given as the mask `' +
  SECRET_MASK +
  '` (as a response shows it) keeps the stored value of that name.';

/** A map rule whose values may also be exactly the mask. */
function orMask(rule: StringMapRule): StringMapRule {
  const inner = rule.valuePattern.source.replace(/^\^/, '').replace(/\$$/, '');
  return { ...rule, valuePattern: new RegExp(`^(?:${SECRET_MASK}|${inner})$`) };
}

function SavedSecretMap(
  rule: StringMapRule,
  example: Record<string, string>,
  description: string,
  refuse?: (key: string) => string | null,
) {
  return applyDecorators(
    ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, nullable: true, example, description }),
    IsOptional(),
    IsObject(),
    IsStringMap(orMask(rule)),
    HasUsableKeys(refuse),
  );
}

export class SavedCrawlOptionsDto extends OmitType(CrawlOptionsDto, ['headers', 'cookies'] as const) {
  @SavedSecretMap(
    HEADER_MAP_RULE,
    { Authorization: 'Bearer ...' },
    "Request headers for the crawl's seed host (a batch: each listed URL's host), merged under a request's own (a request's header of the same name wins). Sealed at rest (AES-256-GCM under GLEANER_SECRET), never logged; a response shows each name with the value `" +
      SECRET_MASK +
      '`. A `Cookie` header is kept as `cookies`, a `User-Agent` header as `user_agent`. Refused as in crawl options: Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive, TE, Trailer, Upgrade, Expect, Accept-Encoding, HTTP2-Settings, Proxy-*. ' +
      PARTIAL,
    forbiddenHeaderReason,
  )
  headers?: Record<string, string> | null;

  @SavedSecretMap(
    COOKIE_MAP_RULE,
    { session: 'abc123' },
    "Cookies (name → value) for the same host, merged under a request's own (a request's cookie of the same name wins). Sealed at rest like `headers`; a response shows each name with the value `" +
      SECRET_MASK +
      '`. ' +
      PARTIAL,
  )
  cookies?: Record<string, string> | null;
}

const MASKED = { type: 'string', enum: [SECRET_MASK] };

/** A stored header or cookie map as a response shows it: the names, each value the mask. */
function MaskedMapProperty(map: 'headers' | 'cookies', exampleName: string): PropertyDecorator {
  return ApiPropertyOptional({
    type: 'object',
    additionalProperties: MASKED,
    example: { [exampleName]: SECRET_MASK },
    description: `The stored ${map}' names, each value shown as \`${SECRET_MASK}\` (absent when none are stored).`,
  });
}

/** The saved crawl options as a response shows them: each stored header or cookie value is the mask. */
export class SavedCrawlOptionsView extends OmitType(CrawlOptionsDto, ['headers', 'cookies'] as const) {
  @MaskedMapProperty('headers', 'Authorization')
  headers?: Record<string, string>;

  @MaskedMapProperty('cookies', 'session')
  cookies?: Record<string, string>;
}
