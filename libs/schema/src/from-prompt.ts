import type { JsonSchemaObject } from './types';

/** The title that marks a job's schema as still to be proposed by the model (docs/scrape.md "A prompt without a schema"). */
const FROM_PROMPT_TITLE = 'gleaner:schema-from-prompt';

/**
 * What a job stores as its schema when the request gave a `prompt` and no schema: an empty object marked by its
 * title. No request can give it (a schema with no field does not parse), and the page pipeline replaces it, page by
 * page, by the schema the model proposes for the prompt (libs/extraction page/schema-proposal.ts).
 */
export const SCHEMA_FROM_PROMPT: JsonSchemaObject = Object.freeze({
  type: 'object',
  title: FROM_PROMPT_TITLE,
  properties: {},
  required: [],
  additionalProperties: false,
});

/** Whether a job's schema is to be proposed by the model from its prompt. */
export function isSchemaFromPrompt(schema: JsonSchemaObject | null | undefined): boolean {
  return schema?.title === FROM_PROMPT_TITLE && Object.keys(schema.properties ?? {}).length === 0;
}
