/** The input ran out in the middle of something. */
export class TruncatedInput extends Error {}
/** The input expanded past its cap (a gzip bomb, or simply too much). */
export class ExpandedTooFar extends Error {}

/**
 * Reads a byte stream in lines and exact runs, buffering no more than one line (bounded by the
 * caller) or one run at a time, and counting every byte against a cap.
 */
export class ByteSource {
  private buffer: Buffer = Buffer.alloc(0);
  private done = false;
  private readonly iterator: AsyncIterator<Buffer>;
  /** Bytes consumed so far (the offset of the next byte). */
  offset = 0;
  private received = 0;

  constructor(
    source: AsyncIterable<Buffer>,
    private readonly maxBytes: number,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** Whether the input is exhausted. */
  async atEnd(): Promise<boolean> {
    if (this.buffer.length > 0) return false;
    return !(await this.fill());
  }

  /**
   * The next line without its CRLF (or LF). A line longer than `maxLength` is `null`: its bytes up to
   * the cap are consumed and the caller decides what follows. At the end of input a partial line is
   * returned as it is; no input at all is `undefined`.
   */
  async readLine(maxLength: number): Promise<string | null | undefined> {
    for (;;) {
      const newline = this.buffer.indexOf(0x0a);
      if (newline >= 0 && newline <= maxLength + 1) {
        const end = newline > 0 && this.buffer[newline - 1] === 0x0d ? newline - 1 : newline;
        const line = this.buffer.toString('latin1', 0, end);
        this.consume(newline + 1);
        return line;
      }
      if (this.buffer.length > maxLength + 1) {
        this.consume(maxLength);
        return null;
      }
      if (!(await this.fill())) {
        if (this.buffer.length === 0) return undefined;
        const line = this.buffer.toString('latin1');
        this.consume(this.buffer.length);
        return line;
      }
    }
  }

  /** Exactly `length` bytes (the caller bounds `length`); TruncatedInput when the input ends first. */
  async read(length: number): Promise<Buffer> {
    // Chunks are gathered in a list and joined once (joining on every chunk would copy a large record many times).
    const parts: Buffer[] = [];
    let have = 0;
    while (have < length) {
      if (this.buffer.length === 0 && !(await this.fill())) throw new TruncatedInput(`the input ended ${length - have} bytes short`);
      const step = Math.min(length - have, this.buffer.length);
      parts.push(this.buffer.subarray(0, step));
      this.consume(step);
      have += step;
    }
    return Buffer.concat(parts, length);
  }

  /** Discards `length` bytes without keeping them; TruncatedInput when the input ends first. */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      if (this.buffer.length === 0 && !(await this.fill())) throw new TruncatedInput(`the input ended ${left} bytes short`);
      const step = Math.min(left, this.buffer.length);
      this.consume(step);
      left -= step;
    }
  }

  /** The next `length` bytes without consuming them (fewer at the end of input). */
  async peek(length: number): Promise<Buffer> {
    while (this.buffer.length < length && (await this.fill()));
    return this.buffer.subarray(0, Math.min(length, this.buffer.length));
  }

  /** Puts bytes back in front of the input (the reader found the next record inside a record's content). */
  unread(data: Buffer): void {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([data, this.buffer]);
    this.offset -= data.length;
  }

  private consume(length: number): void {
    this.buffer = this.buffer.subarray(length);
    this.offset += length;
  }

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.received += next.value.length;
    if (this.received > this.maxBytes) throw new ExpandedTooFar(`the input is larger than ${this.maxBytes} bytes once decompressed`);
    this.buffer = this.buffer.length === 0 ? next.value : Buffer.concat([this.buffer, next.value]);
    return true;
  }
}
