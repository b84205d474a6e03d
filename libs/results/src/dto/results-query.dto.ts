import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { RESULT_FORMATS } from '../result-formats';
import { CONTENT_TRUNCATED_PROPERTY, ITEMS_PROPERTY, ItemsReportResponse } from './completeness.dto';
import { WARNINGS_PROPERTY, WarningResponse } from './warning.dto';

const BOOLEAN = ['true', 'false'];

export class ResultsQuery {
  @ApiPropertyOptional({
    enum: [...RESULT_FORMATS],
    description: 'Output format; wins over the Accept header. Any other value is a 406.',
  })
  @IsOptional()
  @IsString()
  format?: string;

  @ApiPropertyOptional({
    enum: BOOLEAN,
    default: 'false',
    description:
      'true: one array merging every page (array data contributes its elements, a single-array-field object its items, ' +
      'other objects themselves; duplicates by JSON or by `url` field, keeping the richer, appear once; failed pages skipped).',
  })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'must be true or false' })
  merge?: string;
}

export class DownloadLinkQuery {
  @ApiPropertyOptional({
    enum: [...RESULT_FORMATS],
    default: 'json',
    description: 'Format of the file; signed into the link. Any other value is a 406.',
  })
  @IsOptional()
  @IsString()
  format?: string;

  @ApiPropertyOptional({
    enum: BOOLEAN,
    default: 'false',
    description: 'Merge the pages into one array (see GET /jobs/{id}/results); signed into the link.',
  })
  @IsOptional()
  @IsIn(BOOLEAN, { message: 'must be true or false' })
  merge?: string;
}

/** The signed parameters of a download link (all of them are covered by `sig`). */
export class DownloadFileQuery {
  @ApiPropertyOptional({ enum: [...RESULT_FORMATS], default: 'json' }) @IsOptional() @IsString() format?: string;
  @ApiPropertyOptional({ enum: BOOLEAN, default: 'false' }) @IsOptional() @IsString() merge?: string;
  @ApiPropertyOptional({ description: 'Unix time (seconds) after which the link is refused' }) @IsOptional() @IsString() expires?: string;
  @ApiPropertyOptional({ description: 'base64url HMAC-SHA256 over "job_id|format|merge|expires"' }) @IsOptional() @IsString() sig?: string;
}

/** The signed parameters of a screenshot link. */
export class ScreenshotFileQuery {
  @ApiPropertyOptional({ description: 'Unix time (seconds) after which the link is refused' }) @IsOptional() @IsString() expires?: string;
  @ApiPropertyOptional({ description: 'base64url HMAC-SHA256 over "screenshot|screenshot_id|expires"' })
  @IsOptional()
  @IsString()
  sig?: string;
}

export class DownloadLinkResponse {
  @ApiProperty({ example: '01JD0000000000000000000000' }) job_id!: string;
  @ApiProperty({
    example: 'https://gleaner.example.com/api/v1/downloads/01JD0000000000000000000000?format=json&merge=false&expires=1795000000&sig=...',
  })
  download_url!: string;
  @ApiProperty({ example: '2026-11-22T06:40:00.000Z' }) expires_at!: string;
}

/** The learned rule that read a value (docs/provenance.md "Fields"). */
export class SelectorResponse {
  @ApiProperty({ example: 'div.product-author > a', description: "The rule's CSS selector." }) css!: string;
  @ApiProperty({
    enum: ['text', 'own-text', 'after-label', 'attribute'],
    description:
      "What the rule read from the matched element: its text, its own text nodes, the text after a label, or an attribute's value.",
  })
  read!: string;
  @ApiPropertyOptional({ example: 'content', description: '`read: attribute`: the attribute.' }) attribute?: string;
  @ApiPropertyOptional({ example: 'Publisher:', description: '`read: after-label`: the label the value follows.' }) label?: string;
  @ApiPropertyOptional({ example: 'By:', description: "Only elements whose parent's leading text is this label." }) parent_label?: string;
}

/** Where a value was found on the page. */
export class EvidenceResponse {
  @ApiProperty({
    example: '…| Price | $1,299.00 | | Published |…',
    description: 'The match with up to 40 characters each side, whitespace collapsed.',
  })
  text!: string;
  @ApiProperty({
    enum: ['page', 'excerpt', 'title', 'attribute'],
    description:
      'Where the match is: the page text the model saw (the whole page as markdown, or the excerpt of a partial call), the page title, or an attribute value.',
  })
  in!: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: '`page` and `excerpt`: offset of the match in the text the model saw (UTF-16 code units).',
  })
  start?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'End of the match (exclusive).' }) end?: number;
  @ApiPropertyOptional({
    example: 'content',
    description: '`in: attribute`: its name (`content`, `alt`, `title`, `value`, `datetime`, `href`, `src`).',
  })
  attribute?: string;
}

/** One value's provenance: `metadata.fields[<path>]` (docs/provenance.md). */
export class FieldProvenanceResponse {
  @ApiProperty({ enum: ['model', 'selectors'], description: "The model's answer, or a learned selector program." }) source!: string;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description:
      'true: a normalised form of the value is on the page; false: it is not (invented, or from elsewhere); null: the value is ' +
      'null, or not checked (booleans, enum values, or the check gave up: see `reason`).',
  })
  grounded!: boolean | null;
  @ApiPropertyOptional({ type: SelectorResponse, description: '`full`, learned values: the rule that read it.' })
  selector?: SelectorResponse;
  @ApiPropertyOptional({ type: EvidenceResponse, description: '`full`, grounded values: where it was found.' })
  evidence?: EvidenceResponse;
  @ApiPropertyOptional({
    enum: [
      'model_null',
      'model_empty',
      'coerce_failed',
      'not_on_page',
      'ungrounded',
      'not_checkable',
      'value_too_long',
      'unsupported_script',
      'budget_exhausted',
      'page_too_large',
      'leaf_limit',
    ],
    description:
      "`full`: why the value is null (`model_null`, `model_empty`, `coerce_failed`: the model gave a text the field's type cannot " +
      'read, `not_on_page`: the learned rule found nothing, `ungrounded`: the policy `null_ungrounded` removed it) or why it was ' +
      'not checked (docs/provenance.md "Reasons").',
  })
  reason?: string;
  @ApiPropertyOptional({
    description:
      '`full`: the value the policy `null_ungrounded` (reason `ungrounded`) or coercion (reason `coerce_failed`) replaced by null ' +
      '(texts cut at 200 characters).',
  })
  value?: unknown;
}

@ApiExtraModels(FieldProvenanceResponse)
export class ResultMetadataResponse {
  @ApiProperty({
    type: String,
    enum: ['model', 'selectors', 'mixed', 'analysis', 'scrape'],
    nullable: true,
    description:
      'How `data` was made: `model` (a model call; extract jobs, and crawl pages in extraction_mode model or the ' +
      'learning, verification and check pages of auto), `selectors` (a learned program, no model call), `mixed` ' +
      '(extraction_mode auto: the learned program filled some fields and a partial model call the others, named in ' +
      '`model_fields`), `analysis` (POST /analyze: heuristics refined by a model), `scrape` (the page in the requested ' +
      'formats, no model call but for the `json` format; with fetched_at, fetch_mode, status_code, content_type, fetch_duration_ms, ' +
      'convert_duration_ms and screenshot_id, and with `json` model_call, model, provider and the provenance of `data.json`); ' +
      'null on failed items (no data was made).',
  })
  method!: string | null;
  @ApiPropertyOptional({
    description:
      'extraction_mode auto: the learned program that extracted the page (`selectors`), or that was compared with the model on it ' +
      '(verification and check pages, `model`).',
    example: 'prg_0123456789abcdef',
  })
  program_id?: string;
  @ApiPropertyOptional({ description: 'extraction_mode auto: the template the page belongs to.', example: 'tpl_0123456789abcdef' })
  template_id?: string;
  @ApiPropertyOptional({
    type: [String],
    description: '`mixed`: the fields the model filled (the program filled the others).',
    example: ['author'],
  })
  model_fields?: string[];
  @ApiPropertyOptional({
    enum: ['full', 'partial'],
    description:
      'extraction_mode auto, when the model was called: `full` (the whole page for every field) or `partial` (some fields, or the ' +
      "page's text around where the program found their values); the item's tokens are that call's. `scrape` items with the " +
      '`json` format: `full`, the call that made `data.json`.',
  })
  model_call?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false },
    description:
      'A `prompt` without a schema: the JSON Schema the model proposed for this page, which its data (or `data.json`) follows (docs/scrape.md "A prompt without a schema").',
  })
  schema?: Record<string, unknown>;
  @ApiPropertyOptional({ example: 'gpt-4o-mini', description: '`scrape` items with the `json` format: the model that answered.' })
  model?: string;
  @ApiPropertyOptional({ example: 'openai', description: '`scrape` items with the `json` format: its provider.' })
  provider?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(FieldProvenanceResponse) },
    description:
      'Extracted items (extract jobs, crawl pages) with `provenance` `summary` (the default) or `full`: per leaf path of `data` ' +
      '(`title`, `authors[0]`, `variants[1].sku`), where the value came from and whether it is on the page (docs/provenance.md).',
  })
  fields?: Record<string, FieldProvenanceResponse>;
  @ApiPropertyOptional({ type: 'integer', description: 'Leaves past the listing limit, not in `fields` (docs/provenance.md "Limits").' })
  fields_omitted?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Extracted items: values of `data` not found on the page (counted before the grounding policy, whatever `provenance`).',
  })
  ungrounded_fields?: number;
  @ApiPropertyOptional(CONTENT_TRUNCATED_PROPERTY) content_truncated?: true;
  @ApiPropertyOptional(ITEMS_PROPERTY) items?: ItemsReportResponse[];
  @ApiPropertyOptional({
    format: 'uri',
    example: 'https://shop.example/p/1',
    description:
      "Crawls and batches with `copy_duplicates`: this item is a copy of the original page's (this address was skipped as its " +
      "duplicate; no model call, no tokens or cost); the original's address (docs/dedup.md).",
  })
  duplicate_of?: string;
}

export class ResultItemResponse {
  @ApiProperty() id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: ['completed', 'failed'] }) status!: string;
  @ApiProperty({
    description: 'extracted data (any JSON value; null for a failed page)',
    anyOf: [
      { type: 'object' },
      { type: 'array', items: {} },
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
    ],
  })
  data!: unknown;
  @ApiPropertyOptional({ description: 'failed items only' }) error_category?: string;
  @ApiPropertyOptional({ description: 'failed items only' }) error_message?: string;
  @ApiProperty({ type: ResultMetadataResponse, description: 'How the data was made; on every item.' })
  metadata!: ResultMetadataResponse;
  @ApiProperty(WARNINGS_PROPERTY) warnings!: WarningResponse[];
}

class CaptureRequestResponse {
  @ApiProperty() content_size!: number;
  @ApiProperty() fetch_mode!: string;
  @ApiProperty() model!: string;
  @ApiProperty() prompt_size!: number;
  @ApiProperty() provider!: string;
}

class CaptureResponseResponse {
  @ApiProperty() duration_ms!: number;
  @ApiProperty() error!: string;
  @ApiProperty() input_tokens!: number;
  @ApiProperty() output_tokens!: number;
  @ApiProperty() success!: boolean;
}

export class CaptureItemResponse {
  @ApiProperty() id!: string;
  @ApiProperty() job_type!: string;
  @ApiProperty() url!: string;
  @ApiProperty() timestamp!: string;
  @ApiProperty() prompt!: string;
  @ApiProperty() raw_content!: string;
  @ApiProperty() schema!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) hints_applied!: Record<string, string>;
  @ApiProperty({ type: CaptureRequestResponse }) request!: CaptureRequestResponse;
  @ApiProperty({ type: CaptureResponseResponse }) response!: CaptureResponseResponse;
}

export class DebugCaptureSetResponse {
  @ApiProperty() job_id!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: [CaptureItemResponse] }) captures!: CaptureItemResponse[];
}
