/**
 * A process-wide shared/exclusive gate for page tasks. Ordinary pages share it; a page whose earlier
 * delivery never finished (its worker died with it) runs exclusively, alone in its process, so a page
 * that takes its worker down takes no innocent page with it a second time, and only the culprit
 * reaches the worker_crash count. Writer-preferring: once an exclusive task waits, new shared ones wait too.
 */
export class ExclusiveGate {
  private shared = 0;
  private exclusive = false;
  private exclusiveWaiting = 0;
  private readonly wakers = new Set<() => void>();

  async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    if (exclusive) await this.enterExclusive();
    else await this.enterShared();
    try {
      return await work();
    } finally {
      if (exclusive) this.exclusive = false;
      else this.shared--;
      for (const wake of [...this.wakers]) wake();
    }
  }

  private async enterShared(): Promise<void> {
    while (this.exclusive || this.exclusiveWaiting > 0) await this.change();
    this.shared++;
  }

  private async enterExclusive(): Promise<void> {
    this.exclusiveWaiting++;
    try {
      while (this.exclusive || this.shared > 0) await this.change();
      this.exclusive = true;
    } finally {
      this.exclusiveWaiting--;
    }
  }

  private change(): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.wakers.delete(wake);
        resolve();
      };
      this.wakers.add(wake);
    });
  }
}
