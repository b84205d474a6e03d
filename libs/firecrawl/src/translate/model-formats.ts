import { optionNotSupported } from '../wire/errors';
import type { FormatPlan } from './formats';

/** The schema of the `summary` format: one string, the model told what to write by its description. */
export const SUMMARY_SCHEMA = {
  type: 'object',
  properties: {
    summary: {
      type: 'string',
      description: 'A concise summary of the page (a few sentences): what it is and what it says. Plain text.',
    },
  },
  required: ['summary'],
} as const;

/**
 * The JSON Schema a `json` format extracts with: the caller's schema, the prompt carried as its description
 * (the extraction prompt shows the model the whole schema, descriptions included; docs/firecrawl.md "json").
 * A prompt without a schema needs free-form extraction, which this server does not have yet: a 400.
 */
export function jsonFormatSchema(plan: FormatPlan, at = 'formats'): Record<string, unknown> | null {
  if (!plan.json) return null;
  if (!plan.json.schema) throw optionNotSupported(at, "a json format with a prompt and no schema (give a 'schema')");
  const schema: Record<string, unknown> = { type: 'object', ...plan.json.schema };
  if (plan.json.prompt) {
    const own = typeof schema.description === 'string' ? `${schema.description}\n` : '';
    schema.description = `${own}${plan.json.prompt}`;
  }
  return schema;
}
