import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapacityResults } from './doc-figures';

const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'bench-results', 'capacity.json'), 'utf8')) as CapacityResults;

/** A copy of the committed bench-results/capacity.json: a complete, real set of results for the specs to change. */
export const committedResults = (): CapacityResults => structuredClone(committed);
