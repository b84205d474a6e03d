import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';

/** One list of objects of the schema: how many items the page has and the data holds (docs/long-lists.md "The answer"). */
export class ItemsReportResponse {
  @ApiProperty({ example: 'products', description: 'The list: a top-level field of `data`, or `$` when `data` is the list.' })
  path!: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 200,
    description:
      "Items the page's repeated structure holds (table rows, list items, cards, sections); null when none was found for this list.",
  })
  expected!: number | null;
  @ApiProperty({ type: 'integer', example: 200, description: 'Items in `data`.' })
  extracted!: number;
  @ApiProperty({
    type: 'integer',
    example: 4,
    description: 'Model answers the list was extracted in (1: one call for the page; 0: a learned program filled it).',
  })
  chunks!: number;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description:
      "Every item of the page is in `data`: false when fewer than `expected` were extracted or the page's text was cut to fit the model " +
      "(with a `list_incomplete` warning); null when the page's count is unknown: no repeated structure found, more items extracted than counted, " +
      'or `expected_uncertain`. Never true when the page may hold more items.',
  })
  complete!: boolean | null;
  @ApiPropertyOptional({
    enum: [true],
    description:
      'Present (true) when another repeated structure of the page competes with the one counted (a larger run of items beside it, a rival of ' +
      "about its weight, or a count holding little of the page's text): `expected` may be another list's, so `complete` is not true " +
      '(docs/long-lists.md "Counting items").',
  })
  expected_uncertain?: true;
}

/** `metadata.content_truncated`: on model pages whose text was cut to fit the model. */
export const CONTENT_TRUNCATED_PROPERTY: ApiPropertyOptions = {
  enum: [true],
  description: "Present (true) when the page's text was cut to fit the model's context (with a `content_truncated` warning).",
};

/** `metadata.items`: on model pages whose schema asks for a list of objects. */
export const ITEMS_PROPERTY: ApiPropertyOptions = {
  type: [ItemsReportResponse],
  description: 'Per list of objects the schema asks for (the whole answer or a top-level field): its item counts (docs/long-lists.md).',
};
