import type { ModelServer } from '../../fixtures/model-server';
import type { BenchSite } from './site';

/** What every section of the crawl benchmark shares: the site server, the model server, the notes. */
export interface BenchContext {
  site: BenchSite;
  models: ModelServer;
  /** Free-form observations that end up in crawl.json's `notes`. */
  notes: string[];
  log(message: string): void;
}

/** Numbers from the environment, for shorter or longer runs (BENCH_CRAWL_PAGES=500 for a quick try). */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}
