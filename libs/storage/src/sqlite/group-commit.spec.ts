import { DatabaseSync } from 'node:sqlite';
import { GroupCommit, type SqlRunner } from './group-commit';

/** A runner that records statements, and a schedule the test fires by hand (the end of the turn). */
function harness(failOn?: (sql: string) => boolean) {
  const log: string[] = [];
  let open = false;
  const sql: SqlRunner = {
    run(statement) {
      if (failOn?.(statement)) throw new Error(`refused: ${statement}`);
      log.push(statement);
      if (statement === 'BEGIN IMMEDIATE') open = true;
      if (statement === 'COMMIT' || statement === 'ROLLBACK') open = false;
    },
    inTransaction: () => open,
  };
  const pending: Array<() => void> = [];
  const groups = new GroupCommit(sql, (commit) => pending.push(commit));
  const endTurn = () => pending.splice(0).forEach((commit) => commit());
  return { log, groups, endTurn, setOpen: (value: boolean) => (open = value) };
}

const state = <T>(promise: Promise<T>) => {
  const seen = { done: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then(
    (value) => Object.assign(seen, { done: true, value }),
    (error: unknown) => Object.assign(seen, { done: true, error }),
  );
  return seen;
};
const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('puts the writes of one turn in one transaction and resolves each only after its COMMIT', async () => {
    const { log, groups, endTurn } = harness();
    const a = state(groups.write(() => (log.push('write a'), 'a')));
    const b = state(groups.write(() => (log.push('write b'), 'b')));
    await flushMicrotasks();
    expect([a.done, b.done]).toEqual([false, false]);
    expect(log).toEqual(['BEGIN IMMEDIATE', 'write a', 'write b']);
    endTurn();
    await flushMicrotasks();
    expect([a.value, b.value]).toEqual(['a', 'b']);
    expect(log).toEqual(['BEGIN IMMEDIATE', 'write a', 'write b', 'COMMIT']);
    // The next turn opens a new group.
    const c = state(groups.write(() => 'c'));
    endTurn();
    await flushMicrotasks();
    expect(c.value).toBe('c');
    expect(log.filter((s) => s === 'BEGIN IMMEDIATE')).toHaveLength(2);
  });

  it('hands a read made while a group is open over after the commit, and at once when none is', async () => {
    const { groups, endTurn } = harness();
    expect(groups.settled('now')).toBe('now');
    void groups.write(() => undefined);
    const read = state(Promise.resolve(groups.settled('later')));
    await flushMicrotasks();
    expect(read.done).toBe(false);
    endTurn();
    await flushMicrotasks();
    expect(read.value).toBe('later');
  });

  it('fails one write alone: the others of its group still commit', async () => {
    const { groups, endTurn } = harness();
    const bad = state(
      groups.write(() => {
        throw new Error('constraint');
      }),
    );
    const good = state(groups.write(() => 'kept'));
    endTurn();
    await flushMicrotasks();
    expect((bad.error as Error).message).toBe('constraint');
    expect(good.value).toBe('kept');
  });

  it('fails every write and read of a group whose COMMIT fails, and rolls it back', async () => {
    const { log, groups, endTurn } = harness((sql) => sql === 'COMMIT');
    const write = state(groups.write(() => 'w'));
    const read = state(Promise.resolve(groups.settled('r')));
    endTurn();
    await flushMicrotasks();
    expect((write.error as Error).message).toBe('refused: COMMIT');
    expect((read.error as Error).message).toBe('refused: COMMIT');
    expect(log).toEqual(['BEGIN IMMEDIATE', 'ROLLBACK']);
  });

  it('abandons a group that a failing write rolled back whole (disk full), failing its earlier writes', async () => {
    const h = harness();
    const earlier = state(h.groups.write(() => 'earlier'));
    const fatal = state(
      h.groups.write(() => {
        h.setOpen(false); // SQLite rolled the whole transaction back
        throw new Error('disk full');
      }),
    );
    await flushMicrotasks();
    expect((fatal.error as Error).message).toBe('disk full');
    expect((earlier.error as Error).message).toBe('disk full');
    const after = state(h.groups.write(() => 'after'));
    h.endTurn();
    await flushMicrotasks();
    expect(after.value).toBe('after');
    expect(h.log.filter((s) => s === 'BEGIN IMMEDIATE')).toHaveLength(2);
  });

  it('flush commits the open group at once (before the store closes)', async () => {
    const { log, groups, endTurn } = harness();
    const write = state(groups.write(() => 1));
    groups.flush();
    await flushMicrotasks();
    expect(write.value).toBe(1);
    endTurn(); // the scheduled commit finds nothing left to do
    expect(log).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
  });

  it('on a real database: a failing statement rolls back itself, a failing atomic write all of its own statements', async () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY)');
    const groups = new GroupCommit({ run: (sql) => void db.exec(sql), inTransaction: () => db.isTransaction });
    const insert = (id: string) => db.prepare('INSERT INTO t (id) VALUES (?)').run(id);
    const results = await Promise.allSettled([
      groups.write(() => insert('a')),
      groups.write(() => insert('a')), // duplicate key
      groups.write(() =>
        groups.atomic(() => {
          insert('b');
          insert('c');
          insert('b'); // the whole atomic write goes: b and c too
        }),
      ),
      groups.write(() => insert('d')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((db.prepare('SELECT id FROM t ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id)).toEqual(['a', 'd']);
    expect(db.isTransaction).toBe(false);
    db.close();
  });
});
