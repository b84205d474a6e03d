import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { IsCssSelector } from '@app/fetch';

/** Pages one extract reads at most by its `paginate` links (the first page included). */
export const PAGINATE_MAX_PAGES = 20;
export const PAGINATE_DEFAULT_MAX_PAGES = 5;

/** `paginate` on extract (docs/long-lists.md "Pagination"): the single-job form of a crawl's `follow_selector`. */
export class PaginateDto {
  @ApiProperty({
    example: 'li.next > a',
    minLength: 1,
    maxLength: 500,
    description:
      "CSS selector of the next page's link: the first http(s) link it matches (an `a` element, or an `a` inside a matched element) on the page's own host that was not read yet is the next page. A selector that does not parse is a 422.",
  })
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  selector!: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: PAGINATE_MAX_PAGES,
    default: PAGINATE_DEFAULT_MAX_PAGES,
    description:
      'Pages read at most, the first included (1 reads only `url`, with robots.txt and the politeness of the pages after it). When the last page read still has a next link, the lists are `complete: false` with a `list_incomplete` warning naming it.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(PAGINATE_MAX_PAGES)
  max_pages?: number;
}

export class PaginatedPageResponse {
  @ApiProperty({ example: 'https://quotes.example/page/2/', description: 'The page as fetched (after redirects).' })
  url!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { from: { type: 'integer' }, count: { type: 'integer' } },
      required: ['from', 'count'],
    },
    example: { quotes: { from: 10, count: 10 } },
    description:
      "Per list of the schema (`$` when the answer is the list): this page's items, as indexes of the answer's list (`from`, `count`). `metadata.fields` paths use the same indexes.",
  })
  items!: Record<string, { from: number; count: number }>;
  @ApiProperty({ type: 'integer', description: 'Items of this page equal to one an earlier page gave: dropped.' })
  repeated!: number;
}

export class PaginationStopResponse {
  @ApiProperty({
    enum: ['no_next_link', 'max_pages', 'refused', 'failed', 'budget'],
    description:
      "`no_next_link`: the last page has no link the selector picks (the list's end). `max_pages`: the pages ran out with a next link left (`next`). `refused`: robots.txt keeps crawlers from `next` (or asks for a Crawl-delay over the maximum). `failed`: `next` could not be fetched or extracted. `budget`: `max_cost_usd` was reached.",
  })
  reason!: 'no_next_link' | 'max_pages' | 'refused' | 'failed' | 'budget';
  @ApiPropertyOptional({ description: 'The next page not read (every reason but `no_next_link`).' })
  next?: string;
  @ApiPropertyOptional({ description: '`refused`, `failed`, `budget`: why.' })
  why?: string;
}

export class PaginationReportResponse {
  @ApiProperty({ type: [PaginatedPageResponse], description: 'The pages read, in order, the first one first.' })
  pages!: PaginatedPageResponse[];
  @ApiProperty({ type: PaginationStopResponse }) stopped!: PaginationStopResponse;
}

/**
 * A crawl's, batch's or monitor's `paginate` (docs/long-lists.md "Pagination"): each extracted page's list read over its
 * "next" pages, as an extract's `paginate` reads one page's. One DTO and one set of rules for every job kind.
 */
export function PaginateProperty(job: 'crawl' | 'batch' | 'monitor'): PropertyDecorator {
  const pages = job === 'monitor' ? "each run's" : `the ${job}'s`;
  const own =
    job === 'monitor'
      ? ' (a run counts each page once, its next pages included)'
      : ` of the ${job} of their own${job === 'crawl' ? ' (their links are not followed)' : ''}`;
  const monitor =
    job === 'monitor'
      ? ' A run diffs the merged list (with `key` on a field of its items: every item over the pages). A page is asked without its validators (a 304 of its first page says nothing of the next ones) and never judged unchanged by a sitemap lastmod: its next pages are fetched before any model call, and the page is unchanged when the text of all its pages hashes as last run\'s (docs/monitors.md "Paginated lists"). In an update, `null` removes it.'
      : '';
  return applyDecorators(
    ApiPropertyOptional({
      type: PaginateDto,
      ...(job === 'monitor' ? { nullable: true } : {}),
      description: `Every extracted page of ${job === 'monitor' ? 'every run' : `the ${job}`} is read as an extract with \`paginate\` reads its page (docs/long-lists.md "Pagination"): its "next" links followed (at most \`max_pages\` pages, the page itself included), each next page fetched as ${pages} pages are (robots.txt unless \`respect_robots\` is false, its Crawl-delay, the host's politeness slot and \`delay_ms\`, a 429 pausing the host), its lists merged into the page's one result with \`metadata.pagination\`. The next pages are part of their first page's result: they are not pages${own}.${monitor} Needs a schema with a list of objects (the answer itself, or a top-level field); ${job === 'monitor' ? 'with a schema without such a list' : 'with `formats`, a prompt and no schema, or a schema without such a list'}, a 422 at \`body.paginate\`.`,
    }),
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => PaginateDto),
  );
}
