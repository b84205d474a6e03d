import type { RunSummary } from '@app/llm';

/**
 * Several model runs' summaries as one (what they cost together; whose key paid is the last run's): a page
 * whose schema was proposed first, a list read in chunks that failed part-way (the chunks before were billed).
 */
export function joined(all: (RunSummary | null)[]): RunSummary {
  const runs = all.filter((s): s is RunSummary => s !== null);
  return {
    attempts: runs.flatMap((s) => s.attempts),
    usage: {
      inputTokens: runs.reduce((n, s) => n + s.usage.inputTokens, 0),
      outputTokens: runs.reduce((n, s) => n + s.usage.outputTokens, 0),
    },
    llmCostUsd: runs.reduce((n, s) => n + s.llmCostUsd, 0),
    costUsd: runs.reduce((n, s) => n + s.costUsd, 0),
    isByok: runs.length > 0 ? runs[runs.length - 1].isByok : false,
  };
}
