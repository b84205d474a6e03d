import { PassThrough, Readable } from 'node:stream';
import { readLines } from './jsonl-lines';
import { OrderedWriter } from './ordered-writer';

const delay = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('OrderedWriter', () => {
  it('writes results in submission order even when they finish out of order', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const writer = new OrderedWriter(out, 3);
    await writer.submit(delay(30, 'first'));
    await writer.submit(delay(1, 'second'));
    await writer.submit(delay(10, 'third'));
    await writer.submit(delay(1, 'fourth'));
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
    await delay(20, null);
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
