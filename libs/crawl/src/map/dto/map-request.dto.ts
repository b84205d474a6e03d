import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AuthProfileProperty, FetchCookiesProperty, FetchHeadersProperty, ProxyProperty, UserAgentProperty } from '@app/fetch';
import { IsHttpUrl, IsPrintable } from '@app/http';

/** POST /map defaults (docs/crawl.md "Map"); `limit` is capped like a crawl's max_pages. */
export const MAP_DEFAULTS = { use_sitemap: true, include_subdomains: false, limit: 5000 } as const;
/** URLs one map answers at most (a map is one answer, not a crawl: GLEANER_CRAWL_MAX_PAGES does not raise it). */
export const MAP_MAX_LIMIT = 100_000;

export class MapRequestDto {
  @ApiProperty({
    example: 'https://shop.example/',
    description: "The site's seed URL: its links, and its origin's robots.txt and sitemaps.",
  })
  @IsString()
  @Length(1, 2048)
  @IsHttpUrl()
  url!: string;

  @ApiPropertyOptional({
    default: MAP_DEFAULTS.use_sitemap,
    description: 'Read robots.txt `Sitemap:` lines and `/sitemap.xml` (indexes, gzip).',
  })
  @IsOptional()
  @IsBoolean()
  use_sitemap?: boolean;

  @ApiPropertyOptional({
    default: MAP_DEFAULTS.include_subdomains,
    description: "Keep URLs of every host of the seed's registrable domain, not only the seed's host.",
  })
  @IsOptional()
  @IsBoolean()
  include_subdomains?: boolean;

  @ApiPropertyOptional({ example: 'pricing', description: 'Rank the URLs by this term, in the URL and in the link text (matches first).' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @IsPrintable()
  search?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAP_MAX_LIMIT, default: MAP_DEFAULTS.limit, description: 'URLs answered at most.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAP_MAX_LIMIT)
  limit?: number;

  /** robots.txt, the sitemaps and the seed page go through this pool (docs/proxies.md). */
  @ProxyProperty()
  proxy?: string;

  /** Fetch control (docs/scrape.md "Fetch control"; no `wait_for`: a map renders nothing). */
  @FetchHeadersProperty("the seed's host")
  headers?: Record<string, string>;

  @FetchCookiesProperty("the seed's host")
  cookies?: Record<string, string>;

  @UserAgentProperty()
  user_agent?: string;

  /** The seed page is read logged in (docs/auth-profiles.md); robots.txt and the sitemaps carry the session too. */
  @AuthProfileProperty()
  auth_profile?: string;
}

export class MapUrl {
  @ApiProperty() url!: string;
  @ApiProperty({ enum: ['seed', 'sitemap', 'page'], description: 'Where it was found first (a link of the seed page, a sitemap).' })
  source!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The text of the seed page link to it.' }) text!: string | null;
  @ApiPropertyOptional({ description: 'With `search`: how well it matches (0: not at all).' }) score?: number;
}

export class MapResponse {
  @ApiProperty({ description: 'The seed, canonical.' }) url!: string;
  @ApiProperty({ description: 'False when the time budget (GLEANER_MAP_TIME_BUDGET_MS) ran out: `urls` is what was found by then.' })
  complete!: boolean;
  @ApiProperty({ description: 'URLs answered (at most `limit`).' }) count!: number;
  @ApiProperty({ description: 'URLs found (in scope, allowed by robots.txt) before the limit.' }) found!: number;
  @ApiProperty({ description: 'Sitemap files read (a missing `/sitemap.xml`, or a page there that is not a sitemap, is not one).' })
  sitemap_files!: number;
  @ApiProperty({ description: 'URLs left out because robots.txt disallows them (or could not be read).' }) robots_excluded!: number;
  @ApiProperty({ type: [MapUrl] }) urls!: MapUrl[];
}
