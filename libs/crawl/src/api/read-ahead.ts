/**
 * The iterable with its first item read now, so that its errors are thrown here (before a streamed answer
 * has sent its status), and the rest read as they are asked for. Stopping early closes the source.
 */
export async function readAhead<T>(source: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  return {
    async *[Symbol.asyncIterator]() {
      let done = first.done === true;
      try {
        if (done) return;
        yield first.value as T;
        for (;;) {
          const next = await iterator.next();
          done = next.done === true;
          if (done) return;
          yield next.value as T;
        }
      } finally {
        if (!done) await iterator.return?.();
      }
    },
  };
}
