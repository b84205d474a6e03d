/**
 * The held-out rule of the learned-extraction benchmarks (docs/learned-extraction.md "Benchmark"): every SWDE
 * site's pages 0000–0149 are the development part, 0150–0249 the held-out part. Fixed before any tuning of the
 * learner and never moved since: the targets apply to the held-out part, measured on a crawl of the held-out
 * pages that starts from what a crawl of the development pages learned.
 *
 * While tuning, run the benchmarks with BENCH_LEARNED_PARTS=dev: only the development part is crawled, so no
 * decision can lean on a held-out page (docs/learned-extraction.md says how this was kept).
 */
import type { JsonSchemaObject } from '../../../libs/schema/src';
import type { SwdeCase } from '../content-corpus';
import { BOOK_SCHEMA } from './corpus';

export const DEV_PAGES = 150;

export type Part = 'dev' | 'heldout';

/** `0150` → heldout. */
export function partOf(pageId: string): Part {
  return Number(pageId.split('/').at(-1)) < DEV_PAGES ? 'dev' : 'heldout';
}

/** BENCH_LEARNED_PARTS: `dev` (development part only, while tuning) or `all` (the default). */
export function partsToRun(): Part[] {
  const value = (process.env.BENCH_LEARNED_PARTS ?? 'all').trim();
  if (value === 'dev') return ['dev'];
  if (value === 'all') return ['dev', 'heldout'];
  console.error(`BENCH_LEARNED_PARTS must be "dev" or "all" (it is "${value}")`);
  process.exit(1);
}

/**
 * The two schema shapes a user writes for the author: `list` (`author: [string]`, every author) and `first`
 * (`author: string`, answered with the first author when a page lists several).
 */
export type Shape = 'list' | 'first';
export const SHAPES: Shape[] = ['list', 'first'];

export function bookSchema(shape: Shape): JsonSchemaObject {
  if (shape === 'list') return BOOK_SCHEMA;
  return { ...BOOK_SCHEMA, properties: { ...BOOK_SCHEMA.properties, author: { type: ['string', 'null'] } } };
}

/** The ground truth as a perfect model answers it for the shape. */
export function shapedTruth(c: SwdeCase, shape: Shape): Record<string, unknown> {
  const v = c.values;
  return {
    title: v.title?.[0] ?? null,
    author: shape === 'list' ? (v.author ?? []) : (v.author?.[0] ?? null),
    isbn_13: v.isbn_13?.[0] ?? null,
    publisher: v.publisher?.[0] ?? null,
    publication_date: v.publication_date?.[0] ?? null,
  };
}

/** A seeded generator (LCG): page orders that differ between runs but are the same every time the benchmark runs. */
export function seeded(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

export function shuffled<T>(items: T[], seed: number): T[] {
  const next = seeded(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
