import { AppError } from '@app/core';
import type { ModelTarget, RunSummary } from '@app/llm';
import { parseSchema, type JsonSchemaObject } from '@app/schema';
import { ExtractionFailure, type ExtractInput, type ExtractionService } from '../extraction.service';
import { joined } from './joined-runs';

/**
 * The call that proposes a page's schema when the request gave a prompt and no schema (docs/scrape.md "A prompt
 * without a schema"): the model reads the page and the prompt and answers a schema in Gleaner's shorthand, as the
 * analyze step suggests one; the page is then extracted with it like any page.
 */
export const PROPOSAL_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    suggested_schema: {
      type: 'string',
      description:
        "A YAML schema in Gleaner's shorthand form (field: type; types string, number, integer, boolean, date, url; lists as [type] " +
        "or [{...}]) of the data the caller's notes ask for, as this page holds it: one field per value asked, a list of objects " +
        'for repeated items.',
    },
  },
  required: ['suggested_schema'],
  additionalProperties: false,
};

export interface ProposedSchema {
  schema: JsonSchemaObject;
  /** What the proposal calls cost (they are the page's, as its extraction's). */
  summaries: RunSummary[];
}

/**
 * Asks the chain for the page's schema: an answer that does not parse as a schema is asked once more with the
 * parser's errors, then the page fails with `llm_invalid_output` (what both calls cost is in the failure).
 */
export async function proposeSchema(
  extraction: Pick<ExtractionService, 'extract'>,
  input: Omit<ExtractInput, 'schema' | 'instructions' | 'part' | 'partial' | 'excerpt'> & { prompt: string },
  targets: ModelTarget[] | undefined,
): Promise<ProposedSchema> {
  const summaries: RunSummary[] = [];
  let problem: string | null = null;
  for (let round = 0; round < 2; round++) {
    const notes = problem
      ? `${input.prompt}\n\nThe schema you proposed before did not parse (${problem}): answer a corrected one.`
      : input.prompt;
    const { prompt: _prompt, ...call } = input;
    let out;
    try {
      out = await extraction.extract({ ...call, schema: PROPOSAL_SCHEMA, instructions: notes }, targets);
    } catch (error) {
      throw error instanceof ExtractionFailure && summaries.length > 0
        ? new ExtractionFailure(error, joined([...summaries, error.summary]))
        : error;
    }
    summaries.push(out);
    const text = (out.data as { suggested_schema?: unknown } | null)?.suggested_schema;
    try {
      return { schema: parseSchema(text, 'suggested_schema').jsonSchema, summaries };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problem = schemaProblem(error);
    }
  }
  const cause = new AppError('upstream-failure', `The model did not propose a usable schema for the prompt: ${problem}`, {
    category: 'llm_invalid_output',
  });
  throw new ExtractionFailure(cause, joined(summaries));
}

/** The parser's first errors, in a line. */
function schemaProblem(error: AppError): string {
  const errors = error.errors ?? [];
  return errors.length > 0
    ? errors
        .slice(0, 3)
        .map((e) => `${e.location}: ${e.message}`)
        .join('; ')
    : (error.detail ?? error.message);
}
