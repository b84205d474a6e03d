import { Usage, warning, type Warning } from '@app/core';
import type { AttemptRecord, ModelTarget } from '@app/llm';
import type { JsonSchemaObject } from '@app/schema';
import { ExtractionFailure, type ExtractInput, type ExtractionService, type ExtractOutput } from '../extraction.service';
import { groundedCallOf, type GroundedCall } from '../grounding.service';
import { extractLists } from '../lists/list-extraction';
import { incompleteWarnings, type ItemsReport } from '../lists/list-merge';
import { pageLists } from '../lists/list-paths';
import { wholePageCounts, withWholePage } from '../lists/whole-page';
import { joined } from './joined-runs';
import type { Completeness } from './page-extraction';

/** The model step's call(s) for one page: one, or one per chunk of a long list (docs/long-lists.md). */
export interface ListedCall {
  data: unknown;
  /** The call whose model is named as the page's (the first). */
  answering: ExtractOutput;
  usage: Usage;
  attempts: AttemptRecord[];
  /** What the data is grounded on: the page's whole text when it was chunked. */
  call: GroundedCall;
  warnings: Warning[];
  /** `metadata.items` and `content_truncated`; absent when the schema has no list and the text was not cut. */
  completeness?: Completeness;
  items?: ItemsReport[];
}

export interface ListStepInput {
  extraction: Pick<ExtractionService, 'extract' | 'chunkBudget'>;
  markdown: string;
  schema: JsonSchemaObject;
  /** Count and chunk the schema's lists (false: an excerpt, one call as it is). */
  lists: boolean;
  itemsPerCall: number;
  maxCostUsd: number | null;
  /** The job's plan when it has one cached; else `plan` resolves it for a list page (a page without lists leaves it to the call). */
  targets: ModelTarget[] | undefined;
  plan: () => Promise<ModelTarget[]>;
  input: ExtractInput;
  /**
   * The whole page's markdown, when `markdown` is its main content only (the json format's default): read for a page
   * whose schema has lists, to tell a list the main content cut (lists/whole-page.ts).
   */
  wholePage?: () => Promise<string>;
}

/**
 * One page's model step: a schema without a list of objects is one call, as it always was; with one, the page's
 * items are counted and, when they do not fit one answer, extracted in chunks (lists/list-extraction.ts). Either
 * way the answer says whether its text was cut and, per list, how many items the page has and the data holds.
 */
export async function listStep(step: ListStepInput): Promise<ListedCall> {
  const lists = step.lists ? pageLists(step.markdown, step.schema) : [];
  if (lists.length === 0) {
    const out = await step.extraction.extract(step.input, step.targets);
    return {
      data: out.data,
      answering: out,
      usage: Usage.of(out),
      attempts: out.attempts,
      call: groundedCallOf(out, step.input.excerpt === true),
      warnings: out.warnings,
      ...(out.contentTruncated ? { completeness: { content_truncated: true } } : {}),
    };
  }
  const targets = step.targets ?? (await step.plan());
  const outs: ExtractOutput[] = [];
  const run = await extractLists({
    markdown: step.markdown,
    lists,
    budget: step.extraction.chunkBudget(targets[0], step.itemsPerCall),
    maxCostUsd: step.maxCostUsd,
    call: async (content, part) => {
      try {
        const out = await step.extraction.extract({ ...step.input, content, ...(part ? { part } : {}) }, targets);
        outs.push(out);
        return out;
      } catch (error) {
        // A failed chunk fails the page, with what the chunks answered before it cost (they were billed).
        throw error instanceof ExtractionFailure && outs.length > 0
          ? new ExtractionFailure(error, joined([...outs, error.summary]))
          : error;
      }
    },
  });
  const answering = run.outs[0];
  const chunked = run.outs.length > 1;
  // A list the main content holds part of: counted on the whole page, its warning first (one per list).
  const whole = step.wholePage
    ? withWholePage(run.items, wholePageCounts(step.markdown, await step.wholePage(), lists))
    : { items: run.items, warnings: [] };
  const warnings = uniqueWarnings([
    ...run.outs.flatMap((o) => o.warnings),
    ...(run.budgetStopped ? budgetWarnings(whole.items, run.outs.length) : []),
    ...whole.warnings,
    ...incompleteWarnings(whole.items),
  ]);
  return {
    data: run.data,
    answering,
    usage: Usage.sum(run.outs.map((o) => Usage.of(o))),
    attempts: run.outs.flatMap((o) => o.attempts),
    call: chunked
      ? { provider: answering.target.provider, model: answering.target.model, content: step.markdown, excerpt: false, nulled: run.nulled }
      : groundedCallOf(answering, false),
    warnings,
    completeness: { ...(run.contentTruncated ? { content_truncated: true } : {}), items: whole.items },
    items: whole.items,
  };
}

/** `list_incomplete` for a list whose chunks the job's cost cap stopped (in place of the general words). */
function budgetWarnings(items: ItemsReport[], answers: number): Warning[] {
  return items
    .filter((r) => r.complete === false)
    .map((r) =>
      warning(
        'list_incomplete',
        `${r.path === '$' ? 'The list' : `The list \`${r.path}\``} is incomplete: the page lists ${r.expected ?? 'more'} items and the answer has ${r.extracted}: ` +
          `the job's cost cap (max_cost_usd) stopped asking for its chunks after ${answers} model answer${answers === 1 ? '' : 's'}.`,
        r.path === '$' ? 'body.schema' : `body.schema.${r.path}`,
      ),
    );
}

/** One warning per code and location (every chunk cut to fit says so once). */
function uniqueWarnings(warnings: Warning[]): Warning[] {
  const seen = new Set<string>();
  return warnings.filter((w) => {
    const key = `${w.code}|${w.location}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
