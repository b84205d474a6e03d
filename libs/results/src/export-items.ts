import type { JobRecord } from '@app/jobs';
import { toResultItem, type ResultItem, type ResultRecord } from './result.types';

/** The first records of a query, up to `max`, and whether that was all of them (the query is then over). */
export async function readUpTo<T>(records: AsyncIterator<T>, max: number): Promise<{ records: T[]; done: boolean }> {
  const read: T[] = [];
  while (read.length < max) {
    const next = await records.next();
    if (next.done) return { records: read, done: true };
    read.push(next.value);
  }
  return { records: read, done: false };
}

/**
 * The items of records read at once, when each one's job type is known without a read: its own (`job_type`)
 * or the job's (`job`, read because the first record had none). Null when one needs lazyJobType's read.
 */
export function itemsOf(records: readonly ResultRecord[], job: JobRecord | null): ResultItem[] | null {
  const items: ResultItem[] = [];
  for (const record of records) {
    const type = typeof record.job_type === 'string' ? record.job_type : job ? job.type : null;
    if (type === null) return null;
    items.push(toResultItem(record, type));
  }
  return items;
}

/**
 * The job type a record's item needs: the record's own (`job_type`), else its job's, read at most once
 * (records stored before `job_type` existed; a job gone since then gives the default, a model call).
 */
export function lazyJobType(
  job: JobRecord | null,
  read: () => Promise<JobRecord | null>,
): (record: ResultRecord) => Promise<string | undefined> {
  let pending: Promise<JobRecord | null> | null = job ? Promise.resolve(job) : null;
  return async (record) => {
    if (typeof record.job_type === 'string') return record.job_type;
    pending ??= read();
    return (await pending)?.type;
  };
}

/** The items of a results query whose first records were already read (the rest, if any, are read as they are consumed). */
export async function* itemsFrom(
  first: readonly ResultRecord[],
  rest: AsyncIterator<ResultRecord> | null,
  typeOf: (record: ResultRecord) => Promise<string | undefined>,
): AsyncIterable<ResultItem> {
  try {
    for (const record of first) yield toResultItem(record, await typeOf(record));
    if (!rest) return;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield toResultItem(next.value, await typeOf(next.value));
  } finally {
    // A consumer that stops early (the client went away) closes the store cursor.
    await rest?.return?.();
  }
}
