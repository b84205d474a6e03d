import type { JobRecord } from '@app/jobs';
import { itemsFrom, itemsOf, lazyJobType, readUpTo } from './export-items';
import type { ResultRecord } from './result.types';

const record = (seq: number, jobType?: string) =>
  ({
    _id: `j:${seq}`,
    id: `r${seq}`,
    job_id: 'j',
    user_id: 'u',
    seq,
    url: `https://a.example/${seq}`,
    status: 'completed',
    data: { seq },
    ...(jobType === undefined ? {} : { job_type: jobType }),
  }) as unknown as ResultRecord;
const analyzeJob = { _id: 'j', user_id: 'u', type: 'analyze' } as unknown as JobRecord;

async function* source<T>(values: T[], closed: { value: boolean }): AsyncGenerator<T> {
  try {
    yield* values;
  } finally {
    closed.value = true;
  }
}

describe('export items', () => {
  it('readUpTo reads at most max records and says whether the query ended', async () => {
    const closed = { value: false };
    const short = source([1, 2], closed);
    expect(await readUpTo(short, 3)).toEqual({ records: [1, 2], done: true });
    const long = source([1, 2, 3, 4], { value: false });
    expect(await readUpTo(long, 3)).toEqual({ records: [1, 2, 3], done: false });
    expect(await long.next()).toEqual({ value: 4, done: false });
    expect(await readUpTo(source([1, 2, 3], { value: false }), 3)).toEqual({ records: [1, 2, 3], done: false });
  });

  it('itemsOf types each record by its own job type, else the job read for it; null when a read is still needed', () => {
    expect(itemsOf([record(1, 'analyze'), record(2, 'extract')], null)?.map((item) => item.metadata)).toEqual([
      { method: 'analysis' },
      { method: 'model' },
    ]);
    expect(itemsOf([record(1), record(2, 'extract')], analyzeJob)?.map((item) => item.metadata)).toEqual([
      { method: 'analysis' },
      { method: 'model' },
    ]);
    expect(itemsOf([record(1, 'analyze'), record(2)], null)).toBeNull();
  });

  it('lazyJobType reads the job at most once, only for records without a type', async () => {
    let reads = 0;
    const typeOf = lazyJobType(null, async () => (reads++, analyzeJob));
    expect(await typeOf(record(1, 'extract'))).toBe('extract');
    expect(reads).toBe(0);
    expect([await typeOf(record(2)), await typeOf(record(3))]).toEqual(['analyze', 'analyze']);
    expect(reads).toBe(1);
  });

  it('itemsFrom yields the records read first, then the rest, and closes the rest when the consumer stops', async () => {
    const typeOf = async (r: ResultRecord) => r.job_type;
    const closed = { value: false };
    const all: string[] = [];
    for await (const item of itemsFrom([record(1, 'extract')], source([record(2, 'extract')], closed), typeOf)) all.push(item.url);
    expect(all).toEqual(['https://a.example/1', 'https://a.example/2']);
    const early = { value: false };
    for await (const item of itemsFrom([record(1, 'extract')], source([record(2, 'extract'), record(3, 'extract')], early), typeOf)) {
      if (item.id === 'r2') break;
    }
    expect(early.value).toBe(true);
    const none: string[] = [];
    for await (const item of itemsFrom([record(1, 'extract')], null, typeOf)) none.push(item.id);
    expect(none).toEqual(['r1']);
  });
});
