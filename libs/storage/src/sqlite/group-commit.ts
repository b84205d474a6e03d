/**
 * Group commit for the embedded store (docs/architecture.md "Embedded store"). Every write made while
 * the event loop runs one turn joins one transaction, committed when the turn ends (`setImmediate`);
 * each write's promise resolves only after that COMMIT, so "durable when it resolves" holds as before.
 * A crawl's page workers write a dozen small records per page, concurrently: committing each alone wrote
 * every touched B-tree page to the log once per record, and the commits were most of the store's time.
 *
 * Atomicity: node:sqlite is synchronous, so each write runs whole before any other code; a failing
 * statement rolls back only itself (SQLite's statement journal) and a multi-statement write runs in a
 * savepoint ({@link atomic}). A read made while a group is open sees its writes (one connection) and is
 * handed over only after they are committed, so no caller acts on a write that might still be lost.
 * If a COMMIT fails, every write and read of the group fails with its error.
 */
export interface SqlRunner {
  run(sql: string): void;
  inTransaction(): boolean;
}

interface Group {
  committed: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  private group: Group | null = null;

  constructor(
    private readonly sql: SqlRunner,
    private readonly schedule: (commit: () => void) => void = (commit) => setImmediate(commit),
  ) {}

  /** Runs a write in the open group (opening one); resolves with its result once the group is committed. */
  async write<R>(fn: () => R): Promise<R> {
    const group = this.join();
    let result: R;
    try {
      result = fn();
    } catch (error) {
      // Some errors (disk full, I/O) roll the whole transaction back: the group's earlier writes are gone.
      if (!this.sql.inTransaction()) this.abandon(group, error);
      throw error;
    }
    await group.committed;
    return result;
  }

  /** Runs `fn`'s statements all or none, inside the caller's write (a savepoint of the group). */
  atomic<R>(fn: () => R): R {
    this.sql.run('SAVEPOINT w');
    try {
      const result = fn();
      this.sql.run('RELEASE w');
      return result;
    } catch (error) {
      if (this.sql.inTransaction()) {
        this.sql.run('ROLLBACK TO w');
        this.sql.run('RELEASE w');
      }
      throw error;
    }
  }

  /** A read's value, handed over once the writes it may have seen are committed. */
  settled<R>(value: R): R | Promise<R> {
    return this.group ? this.group.committed.then(() => value) : value;
  }

  /** Commits the open group now (before the store closes). */
  flush(): void {
    if (this.group) this.commit(this.group);
  }

  private join(): Group {
    if (this.group) return this.group;
    // BEGIN IMMEDIATE takes the write lock now (waiting out another process's for the busy timeout):
    // a group never fails half way for want of it.
    this.sql.run('BEGIN IMMEDIATE');
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const committed = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A group whose every write failed on its own has nobody waiting: its outcome must not be unhandled.
    committed.catch(() => undefined);
    const group: Group = { committed, resolve, reject };
    this.group = group;
    this.schedule(() => this.commit(group));
    return group;
  }

  private abandon(group: Group, error: unknown): void {
    if (this.group !== group) return;
    this.group = null;
    group.reject(error);
  }

  private commit(group: Group): void {
    if (this.group !== group) return; // flushed or abandoned already
    this.group = null;
    try {
      this.sql.run('COMMIT');
      group.resolve();
    } catch (error) {
      try {
        if (this.sql.inTransaction()) this.sql.run('ROLLBACK');
      } finally {
        group.reject(error);
      }
    }
  }
}
