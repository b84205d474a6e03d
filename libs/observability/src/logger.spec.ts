import { Writable } from 'node:stream';
import { createLogger, scrubSecrets } from './logger';

/** A logger whose lines are kept, parsed, once flushed. */
function capture(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logger redaction (the safety net behind never logging secrets)', () => {
  it('redacts an Authorization header and the WebSocket subprotocol a Firecrawl SDK sends its key in', () => {
    const { logger, lines } = capture();
    const key = 'glk_' + 'R'.repeat(40);
    logger.info({ req: { headers: { authorization: `Bearer ${key}`, 'sec-websocket-protocol': key, host: 'x' } } }, 'upgrade');
    logger.info({ headers: { 'sec-websocket-protocol': key } }, 'headers');
    const text = JSON.stringify(lines());
    expect(text).not.toContain(key);
    expect(lines()[0]).toMatchObject({
      req: { headers: { authorization: '[redacted]', 'sec-websocket-protocol': '[redacted]', host: 'x' } },
    });
  });

  it('scrubs keys out of free text', () => {
    expect(scrubSecrets(`failed for glk_${'a'.repeat(30)} with Bearer abc.def`)).toBe('failed for glk_[redacted] with Bearer [redacted]');
  });
});
