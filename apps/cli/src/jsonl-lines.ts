import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

/**
 * Lines of a byte stream, pulled one at a time: the stream is only read when the consumer asks
 * for more, so a slow consumer applies backpressure all the way to stdin.
 */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let start = 0;
    for (let nl = pending.indexOf('\n', start); nl !== -1; nl = pending.indexOf('\n', start)) {
      yield stripCr(pending.slice(start, nl));
      start = nl + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== '') yield stripCr(pending);
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
