import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
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
