/**
 * bench:dedup's `index` section: what the near-duplicate index costs the store per page (docs/dedup.md "Where the index
 * lives"), without a crawl (so it needs no quiet machine). Generated pages, 30 % of them copies of an earlier one (a
 * changed date or the same text), go through DuplicateIndex on an embedded store in a temporary directory, checked eight at
 * a time, as a crawl's page workers do, in three settings: one process (its known originals in memory), every page by
 * another process (nothing known in memory: a crawl whose pages are spread over many replicas), and exact mode. Counted:
 * the port's operations on the index (MongoDB commands on a cluster) and the SQLite statements run on its tables.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { StatementSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuplicateIndex, type DedupeCheck } from '@app/dedup';
import { SqliteDocumentStore, type Collection, type CollectionSpec, type Doc, type DocumentStore } from '@app/storage';

interface Counts {
  operations: Record<string, number>;
  statements: Record<string, number>;
}

/** Counts the SQLite statements run on the index's tables (by verb) while `counting` is set. */
const sqlCounts: Record<string, number> = {};
let counting = false;
for (const method of ['run', 'get', 'all', 'iterate'] as const) {
  const original = StatementSync.prototype[method] as (...args: unknown[]) => unknown;
  (StatementSync.prototype as unknown as Record<string, unknown>)[method] = function (this: StatementSync, ...args: unknown[]) {
    if (counting && /crawl_duplicates/.test(this.sourceSQL)) {
      const verb = this.sourceSQL.trim().split(/\s+/, 1)[0].toUpperCase();
      sqlCounts[verb] = (sqlCounts[verb] ?? 0) + 1;
    }
    return original.apply(this, args);
  };
}

function counted(store: DocumentStore, operations: Record<string, number>): DocumentStore {
  return {
    kind: store.kind,
    ping: () => store.ping(),
    close: () => store.close(),
    async collection<T extends Doc>(spec: CollectionSpec): Promise<Collection<T>> {
      const real = await store.collection<T>(spec);
      return new Proxy(real, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof prop !== 'string' || typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            operations[prop] = (operations[prop] ?? 0) + 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    },
  };
}

/** `pages` generated pages: 70 % originals (a templated text with its own values), 30 % copies of an earlier one. */
function generated(pages: number): Array<{ key: string; url: string; text: string; copy: boolean }> {
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${(i * 7919) % 4001}`);
  let seed = 42;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const originals: string[] = [];
  const out: Array<{ key: string; url: string; text: string; copy: boolean }> = [];
  for (let i = 0; i < pages; i++) {
    const key = `p${String(i).padStart(5, '0')}`;
    if (originals.length > 4 && random() < 0.3) {
      const of = originals[Math.floor(random() * originals.length)];
      const text = random() < 0.5 ? of : of.replace(/updated \S+/, `updated 2026-12-0${1 + Math.floor(random() * 9)}`);
      out.push({ key, url: `https://s.example/${key}?utm_source=x`, text, copy: true });
      continue;
    }
    const values = Array.from({ length: 150 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
    const text = `Shop header Products Cart Account. Product ${i}. ${values} updated 2026-11-30. Footer Contact Terms.`;
    originals.push(text);
    out.push({ key, url: `https://s.example/${key}`, text, copy: false });
  }
  return out;
}

async function run(pages: number, mode: DedupeCheck, oneProcess: boolean): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-dedup-cost-'));
  const store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
  const counts: Counts = { operations: {}, statements: {} };
  try {
    const shared = new DuplicateIndex(counted(store, counts.operations));
    await (shared as unknown as { collection(): Promise<unknown> }).collection(); // created before counting
    const list = generated(pages);
    const job = { id: `cost-${mode}`, userId: 'u1' };
    let next = 0;
    let copies = 0;
    for (const key of Object.keys(sqlCounts)) delete sqlCounts[key];
    counting = true;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < list.length) {
          const page = list[next++];
          const index = oneProcess ? shared : new DuplicateIndex(counted(store, counts.operations));
          if (await index.check(job, page, mode)) copies++;
        }
      }),
    );
    counting = false;
    const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    const per = (n: number) => Math.round((n / pages) * 100) / 100;
    return {
      pages,
      generated_copies: list.filter((p) => p.copy).length,
      found_copies: copies,
      operations_per_page: per(total(counts.operations)),
      sqlite_statements_per_page: per(total(sqlCounts)),
      operations_by_kind: Object.fromEntries(Object.entries(counts.operations).map(([k, n]) => [k, per(n)])),
      sqlite_statements_by_verb: Object.fromEntries(Object.entries(sqlCounts).map(([k, n]) => [k, per(n)])),
    };
  } finally {
    counting = false;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function indexCost(pages = Number(process.env.BENCH_DEDUP_INDEX_PAGES ?? 2000)): Promise<Record<string, unknown>> {
  return {
    note: "per page checked; operations: the port calls on the index (MongoDB commands); statements: SQLite statements on its tables (the side table's trigger runs inside its INSERT)",
    near_one_process: await run(pages, 'near', true),
    near_every_page_another_process: await run(pages, 'near', false),
    exact_one_process: await run(pages, 'exact', true),
  };
}
