import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Keeps at most `limit` results in flight and writes them in submission order. `submit` waits
 * while the window is full (and while stdout is congested), which is what bounds memory.
 */
export class OrderedWriter {
  private readonly queue: Promise<string>[] = [];

  constructor(
    private readonly output: Writable,
    private readonly limit: number,
  ) {}

  /** `result` must not reject: callers turn failures into output lines. */
  async submit(result: Promise<string>): Promise<void> {
    this.queue.push(result);
    while (this.queue.length >= this.limit) await this.writeHead();
  }

  async flush(): Promise<void> {
    while (this.queue.length > 0) await this.writeHead();
  }

  private async writeHead(): Promise<void> {
    const line = await this.queue.shift()!;
    if (!this.output.write(`${line}\n`)) await once(this.output, 'drain');
  }
}
