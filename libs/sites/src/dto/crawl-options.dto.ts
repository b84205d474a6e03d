import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { checkCssSelector } from '@app/content';
import { checkPattern } from '../url-rules';

export const FETCH_MODES = ['auto', 'static', 'dynamic'] as const;
export type FetchMode = (typeof FETCH_MODES)[number];

/** Server-side caps (docs/api.md "Crawl options"); over a cap is a 422. */
export const CRAWL_CAPS = { maxDepth: 10, maxPages: 100_000, concurrency: 32 } as const;

export function IsRe2Pattern(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isRe2Pattern',
      target: target.constructor,
      propertyName,
      options: { message: 'must be a valid RE2 regular expression (no backreferences or lookaround)', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && checkPattern(value) === null },
    });
}

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

/** Crawl options as saved on a site and accepted by POST /crawl. Absent fields take the defaults. */
export class CrawlOptionsDto {
  @ApiPropertyOptional({ example: '^https://quotes\\.example/page/\\d+/$', description: 'RE2 regex on absolute URLs of links to follow.' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @IsRe2Pattern()
  follow_pattern?: string;

  @ApiPropertyOptional({
    example: 'li.next a',
    description:
      'CSS selector of the links to follow (a matched link, or the links inside a matched element); other links are not followed.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  follow_selector?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: CRAWL_CAPS.maxDepth, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(CRAWL_CAPS.maxDepth)
  max_depth?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: CRAWL_CAPS.maxPages, default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_CAPS.maxPages)
  max_pages?: number;

  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() same_domain_only?: boolean;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() use_sitemap?: boolean;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() respect_robots?: boolean;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() extract_from_seed?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: CRAWL_CAPS.concurrency, default: 4 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_CAPS.concurrency)
  concurrency?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 60_000, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  delay_ms?: number;

  @ApiPropertyOptional({ enum: FETCH_MODES, default: 'auto' })
  @IsOptional()
  @IsIn(FETCH_MODES)
  fetch_mode?: FetchMode;

  @ApiPropertyOptional({ type: [String], maxItems: 50 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(1000, { each: true })
  @IsRe2Pattern({ each: true })
  include_patterns?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: 50 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(1000, { each: true })
  @IsRe2Pattern({ each: true })
  exclude_patterns?: string[];

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 10_000,
    description:
      'Cost cap in USD: at the cap no new page starts; pages in flight finish. The job ends completed, error_category budget_exceeded.',
    example: 0.5,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(10_000)
  max_cost_usd?: number;
}

export interface CrawlOptions {
  follow_pattern?: string;
  follow_selector?: string;
  max_depth: number;
  max_pages: number;
  same_domain_only: boolean;
  use_sitemap: boolean;
  respect_robots: boolean;
  extract_from_seed: boolean;
  concurrency: number;
  delay_ms: number;
  fetch_mode: FetchMode;
  include_patterns: string[];
  exclude_patterns: string[];
  max_cost_usd?: number;
}

export const CRAWL_DEFAULTS: Omit<CrawlOptions, 'follow_pattern' | 'follow_selector' | 'max_cost_usd'> = {
  max_depth: 1,
  max_pages: 10,
  same_domain_only: true,
  use_sitemap: false,
  respect_robots: true,
  extract_from_seed: true,
  concurrency: 4,
  delay_ms: 0,
  fetch_mode: 'auto',
  include_patterns: [],
  exclude_patterns: [],
};

/** Request fields over saved (site) options over defaults. */
export function resolveCrawlOptions(...layers: Array<Partial<CrawlOptions> | undefined>): CrawlOptions {
  const merged: Record<string, unknown> = { ...CRAWL_DEFAULTS };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) if (value !== undefined) merged[key] = value;
  }
  return merged as unknown as CrawlOptions;
}
