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
 * What Gleaner is asked for a `json` format: its schema (below), or with a prompt alone Gleaner's `prompt` without a
 * schema: the model proposes each page's schema from it (docs/firecrawl.md "json with a prompt alone"). Null without
 * the format.
 */
export function jsonFormatFields(plan: FormatPlan, at = 'formats'): { schema: Record<string, unknown> } | { prompt: string } | null {
  if (!plan.json) return null;
  if (!plan.json.schema) return { prompt: plan.json.prompt! };
  return { schema: jsonFormatSchema(plan, at)! };
}

/**
 * The JSON Schema a `json` format extracts with: the caller's schema, the prompt carried as its description
 * (the extraction prompt shows the model the whole schema, descriptions included; docs/firecrawl.md "json").
 * Where fields are compared (a monitor, change tracking's json mode) one schema is needed for every copy: a prompt
 * alone is a 400 there.
 */
export function jsonFormatSchema(plan: FormatPlan, at = 'formats'): Record<string, unknown> | null {
  if (!plan.json) return null;
  if (!plan.json.schema)
    throw optionNotSupported(at, "a json format with a prompt and no schema where fields are compared by one schema (give a 'schema')");
  const schema: Record<string, unknown> = { type: 'object', ...plan.json.schema };
  if (plan.json.prompt) {
    const own = typeof schema.description === 'string' ? `${schema.description}\n` : '';
    schema.description = `${own}${plan.json.prompt}`;
  }
  return schema;
}
