/**
 * Ctrl-C routing: the innermost handler wins (the job follower's prompt while a job is followed,
 * otherwise the command's default, which interrupts it).
 */
export class SignalHub {
  private readonly handlers: Array<() => void> = [];

  push(handler: () => void): () => void {
    this.handlers.push(handler);
    return () => {
      const i = this.handlers.lastIndexOf(handler);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  fire(): void {
    this.handlers.at(-1)?.();
  }
}
