import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '@app/jobs';

/** A host as the learned templates store it (`host[:port]`, lower-cased on lookup): no spaces, no control characters. */
const HOST_PATTERN = /^[^\u0000-\u0020\u007f-\u009f]+$/;

export class ListLearnedProgramsQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Only the templates of this host (`host[:port]` of the pages, case-insensitive), e.g. `shop.example` or `127.0.0.1:8080`.',
    example: 'shop.example',
  })
  @IsOptional()
  @IsString()
  @MaxLength(300) // at least one character: the pattern
  @Matches(HOST_PATTERN, { message: 'must be a host name (no spaces or control characters)' })
  host?: string;
}

export class LearnedProgramRuleResponse {
  @ApiProperty({ description: 'The schema field this rule fills.' }) field!: string;
  @ApiProperty({ description: 'CSS selector.', example: 'h1.title' }) selector!: string;
  @ApiProperty({ enum: ['first', 'all'] }) pick!: string;
  @ApiPropertyOptional({
    description: "Only elements whose parent's text before its first child element is exactly this (`By:`, not `Edited By:`).",
    example: 'By:',
  })
  parentLabel?: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Where the value is read: `{kind: text | own-text}`, `{kind: attr, name}` or `{kind: after-label, label}`.',
  })
  source!: Record<string, unknown>;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'String steps in order: `{op: strip-prefix | strip-suffix, value}` or `{op: split, separator, index?}`.',
  })
  steps!: Array<Record<string, unknown>>;
  @ApiProperty({ enum: ['string', 'number', 'integer', 'date', 'date-time', 'url'] }) parse!: string;
  @ApiPropertyOptional({
    type: () => [LearnedProgramRuleResponse],
    description:
      'A list of objects (docs/long-lists.md "Learned lists"): `selector` picks each item\'s element and these rules (`pick: first`) read its properties inside it; the rule\'s own `source`, `steps` and `parse` are not used.',
  })
  items?: LearnedProgramRuleResponse[];
}

export class LearnedProgramCodeResponse {
  @ApiProperty({ example: 'prg_0123456789abcdef', description: '`prg_` + a hash of the rules (`metadata.program_id` of results).' })
  id!: string;
  @ApiProperty({ type: 'integer', example: 1 }) version!: number;
  @ApiProperty({ type: [LearnedProgramRuleResponse] }) rules!: LearnedProgramRuleResponse[];
}

class LearnedVerificationResponse {
  @ApiProperty({ type: 'integer', description: 'Verification pages of the current round.' }) pages!: number;
  @ApiProperty({ type: 'integer', description: 'Of those, pages on which every verified rule agreed with the model.' }) agreeing!: number;
}

class LearnedFieldChecksResponse {
  @ApiProperty({ type: 'integer', description: "Checks of the field's accepted rule." }) total!: number;
  @ApiProperty({ type: 'integer' }) disagreeing!: number;
}

class LearnedFieldStateResponse {
  @ApiProperty() field!: string;
  @ApiProperty({
    enum: ['learning', 'verifying', 'active'],
    description:
      '`learning`: the model fills the field; `verifying`: the model fills it and the rule is compared; `active`: the rule fills it.',
  })
  phase!: string;
  @ApiProperty({
    type: LearnedProgramRuleResponse,
    nullable: true,
    description: 'The rule verified or in use; null while learning, or when the rule is "always empty" (the model never filled the field).',
  })
  rule!: LearnedProgramRuleResponse | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0123456789abcdef',
    description: "The rule's key (`rule_id` in `disagreements.recent`).",
  })
  rule_id!: string | null;
  @ApiProperty({ type: LearnedVerificationResponse }) verification!: LearnedVerificationResponse;
  @ApiProperty({ type: LearnedFieldChecksResponse }) checks!: LearnedFieldChecksResponse;
  @ApiProperty({ description: 'The field had a value on every page its rule was learned and verified on: an empty value asks the model.' })
  always_filled!: boolean;
  @ApiProperty({ type: 'integer', description: 'Pages the accepted rule filled.' }) pages_extracted!: number;
  @ApiProperty({
    description:
      'The model confirmed a value of the rule that grounding does not find on the page (a form the normaliser does not know): ' +
      'ungrounded values of the rule no longer send the field to the model (docs/provenance.md "Learned programs").',
  })
  ungrounded_confirmed!: boolean;
}

const FIELD_COUNTS = { type: 'object', additionalProperties: { type: 'integer' }, example: { author: 2 } } as const;

class LearnedChecksResponse {
  @ApiProperty({ type: 'integer', description: 'Checks (spot checks and guards) since the program was accepted.' }) total!: number;
  @ApiProperty({ type: 'integer', description: 'Of those, checks on which at least one field disagreed.' }) disagreeing!: number;
  @ApiProperty({ ...FIELD_COUNTS, description: 'Per field: the checks on which it disagreed (fields that never did are left out).' })
  by_field!: Record<string, number>;
}

class LearnedDisagreementResponse {
  @ApiProperty({ description: 'The page.' }) url!: string;
  @ApiProperty() field!: string;
  @ApiProperty({
    enum: ['verification', 'spot-check', 'schema', 'empty-field', 'ungrounded', 'reverification'],
    description:
      "What the page was: a verification page, a spot check, a guard (`schema`, `empty-field`, `ungrounded`: the rule's value was not on the page), or a re-verification.",
  })
  role!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The program in use for the active fields then (null when none was).' })
  program_id!: string | null;
  @ApiProperty({ example: '0123456789abcdef', description: "The field's rule compared with the model (`field_states[].rule_id`)." })
  rule_id!: string;
  @ApiProperty({ description: "The program's value (any JSON value; texts over 200 characters and lists over 10 items are cut)." })
  program!: unknown;
  @ApiProperty({ description: "The model's value, cut the same way." }) model!: unknown;
}

class LearnedDisagreementsResponse {
  @ApiProperty({ ...FIELD_COUNTS, description: 'Per field: pages (verification pages and checks, every program) on which it disagreed.' })
  by_field!: Record<string, number>;
  @ApiProperty({ type: [LearnedDisagreementResponse], description: 'The latest disagreeing fields (at most 10), oldest first.' })
  recent!: LearnedDisagreementResponse[];
}

class LearnedRetiredResponse {
  @ApiProperty({ description: 'The program the rule was part of when it was retired.' }) program_id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The field whose rule was retired (null: a whole program, retired before rules were per field).',
  })
  field!: string | null;
  @ApiProperty() reason!: string;
  @ApiProperty({ type: 'integer' }) pages_extracted!: number;
}

class LearnedFailureResponse {
  @ApiProperty() field!: string;
  @ApiProperty() reason!: string;
}

export class LearnedProgramResponse {
  @ApiProperty({ example: 'lt_0123456789abcdef01234567', description: 'The id of this learned template and its program.' }) id!: string;
  @ApiProperty({ example: 'shop.example' }) host!: string;
  @ApiProperty({ example: 'tpl_0123456789abcdef', description: 'The template id result metadata carries (`metadata.template_id`).' })
  template_id!: string;
  @ApiProperty({ description: 'Hash of the extraction schema the program extracts (programs are per schema).' }) schema_key!: string;
  @ApiProperty({ type: [String], description: "The schema's fields." }) fields!: string[];
  @ApiProperty({
    enum: ['learning', 'verifying', 'active'],
    description:
      "The least advanced phase of the template's fields (`field_states`): `active` when the program fills every field (with spot checks).",
  })
  phase!: string;
  @ApiProperty({
    type: LearnedProgramCodeResponse,
    nullable: true,
    description: 'The program: the accepted rules of the active fields (null while no field is active).',
  })
  program!: LearnedProgramCodeResponse | null;
  @ApiProperty({ type: [LearnedFieldStateResponse], description: "Each field's rule, phase and counts, in the schema's order." })
  field_states!: LearnedFieldStateResponse[];
  @ApiProperty({ type: 'integer', description: 'Pages of this template, every crawl.' }) pages!: number;
  @ApiProperty({ type: 'integer', description: 'Of those, pages sent to the model.' }) model_calls!: number;
  @ApiProperty({ type: LearnedVerificationResponse }) verification!: LearnedVerificationResponse;
  @ApiProperty({ type: LearnedChecksResponse }) checks!: LearnedChecksResponse;
  @ApiProperty({
    type: LearnedDisagreementsResponse,
    description:
      'Why programs were rejected or retired: the fields that disagreed with the model since the template was founded, and the latest values.',
  })
  disagreements!: LearnedDisagreementsResponse;
  @ApiProperty({
    type: [LearnedRetiredResponse],
    description: 'Rules retired by the checks: the program they were part of, the field, the reason.',
  })
  retired!: LearnedRetiredResponse[];
  @ApiProperty({ type: [LearnedFailureResponse], description: 'Why the last learning attempt found no rule for a field.' })
  last_failures!: LearnedFailureResponse[];
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T05:41:00.456Z' }) updated_at!: string;
}

export class LearnedProgramListResponse {
  @ApiProperty({ type: [LearnedProgramResponse] }) learned_programs!: LearnedProgramResponse[];
}
