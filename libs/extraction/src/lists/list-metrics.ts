import { Counter } from 'prom-client';
import type { Metrics } from '@app/observability';
import type { ItemsReport } from './list-merge';

export interface ListOutcomes {
  count(reports: ItemsReport[]): void;
}

/**
 * `gleaner_lists_total{outcome, chunked}`: the lists of extracted pages, by whether every item was extracted
 * (`complete`), some are known missing (`incomplete`: the `list_incomplete` warning) or the page's count is unknown
 * (`unknown`: no repeated structure found), and whether the list was extracted in chunks (docs/operations.md).
 */
export function listOutcomes(metrics: Metrics): ListOutcomes {
  const counter = metrics.once(
    'gleaner_lists_total',
    () =>
      new Counter({
        name: 'gleaner_lists_total',
        help: 'Lists of objects in extracted pages, by outcome (complete, incomplete: list_incomplete warned, unknown: no item count) and chunked (true, false). Unit: lists.',
        labelNames: ['outcome', 'chunked'],
        registers: [metrics.registry],
      }),
  );
  for (const outcome of ['complete', 'incomplete', 'unknown'])
    for (const chunked of ['true', 'false']) counter.inc({ outcome, chunked }, 0);
  return {
    count(reports) {
      for (const r of reports) {
        const outcome = r.complete === true ? 'complete' : r.complete === false ? 'incomplete' : 'unknown';
        counter.inc({ outcome, chunked: r.chunks > 1 ? 'true' : 'false' });
      }
    },
  };
}
