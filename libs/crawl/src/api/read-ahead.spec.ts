import { readAhead } from './read-ahead';

describe('readAhead', () => {
  it('reads the first item at once, the others only when asked, and gives them all in order', async () => {
    const read: number[] = [];
    async function* source() {
      for (const n of [1, 2, 3]) {
        read.push(n);
        yield n;
      }
    }
    const ahead = await readAhead(source());
    expect(read).toEqual([1]);
    const got: number[] = [];
    for await (const n of ahead) got.push(n);
    expect(got).toEqual([1, 2, 3]);
    expect(read).toEqual([1, 2, 3]);
  });

  it('throws the error of the first read itself, before anything is answered', async () => {
    async function* failing(): AsyncGenerator<number> {
      throw new Error('store down');
    }
    await expect(readAhead(failing())).rejects.toThrow('store down');
  });

  it('an empty source gives nothing; a consumer that stops early closes the source', async () => {
    async function* empty(): AsyncGenerator<number> {}
    const none: number[] = [];
    for await (const n of await readAhead(empty())) none.push(n);
    expect(none).toEqual([]);

    let closed = false;
    async function* endless() {
      try {
        for (let n = 0; ; n++) yield n;
      } finally {
        closed = true;
      }
    }
    for await (const n of await readAhead(endless())) if (n === 2) break;
    expect(closed).toBe(true);
  });
});
