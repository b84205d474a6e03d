import { PassThrough, Readable } from 'node:stream';
import { readLines } from './jsonl-lines';
import { OrderedWriter } from './ordered-writer';

/** A result the test settles when it chooses. */
function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
}

/** One turn of the event loop: every promise reaction already queued has run afterwards. */
const turn = () => new Promise<void>((r) => setImmediate(r));

describe('OrderedWriter', () => {
  it('writes results in submission order even when they finish out of order', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const writer = new OrderedWriter(out, 5);
    const results = ['first', 'second', 'third', 'fourth'].map(() => deferred());
    for (const result of results) await writer.submit(result.promise);
    // Settled in the order 2, 4, 3, 1: the last submitted but one finishes first.
    for (const [i, value] of [
      [1, 'second'],
      [3, 'fourth'],
      [2, 'third'],
      [0, 'first'],
    ] as const) {
      results[i].resolve(value);
      await turn();
    }
    await writer.flush();
    expect(text).toBe('first\nsecond\nthird\nfourth\n');
  });

  it('does not accept more than `limit` results in flight', async () => {
    const out = new PassThrough();
    out.resume();
    const writer = new OrderedWriter(out, 2);
    let release!: (v: string) => void;
    const blocked = new Promise<string>((r) => (release = r));
    await writer.submit(blocked);
    let secondAccepted = false;
    const second = writer.submit(Promise.resolve('b')).then(() => (secondAccepted = true));
    // 'b' is already settled, so an accepting writer would have resolved `second` within this turn.
    await turn();
    expect(secondAccepted).toBe(false);
    release('a');
    await second;
    expect(secondAccepted).toBe(true);
    await writer.flush();
  });
});

describe('readLines', () => {
  it('splits chunks at newlines, handles CRLF, split UTF-8 characters and a final line without newline', async () => {
    const euro = Buffer.from('€');
    const chunks = [
      Buffer.from('one\r\ntw'),
      Buffer.concat([Buffer.from('o '), euro.subarray(0, 1)]),
      Buffer.concat([euro.subarray(1), Buffer.from('\nthree')]),
    ];
    const out: string[] = [];
    for await (const line of readLines(Readable.from(chunks))) out.push(line);
    expect(out).toEqual(['one', 'two €', 'three']);
  });
});
