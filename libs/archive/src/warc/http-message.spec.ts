import { gzipSync } from 'node:zlib';
import { parseHttpResponse } from './http-message';

describe('parseHttpResponse', () => {
  it('reads status, headers (lower-case, repeated joined) and the body', () => {
    const parsed = parseHttpResponse(
      Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n<p>x</p>'),
      1024,
      1024,
    );
    expect(parsed).toEqual({
      status: 404,
      headers: { 'content-type': 'text/html', 'set-cookie': 'a=1, b=2' },
      body: Buffer.from('<p>x</p>'),
    });
  });

  it('removes chunked transfer encoding and gzip content encoding', () => {
    const gz = gzipSync(Buffer.from('<p>hello</p>'));
    const chunked = Buffer.concat([Buffer.from(`${gz.length.toString(16)}\r\n`), gz, Buffer.from('\r\n0\r\n\r\n')]);
    const block = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n'), chunked]);
    const parsed = parseHttpResponse(block, 1024, 1024);
    expect('body' in parsed && parsed.body.toString()).toBe('<p>hello</p>');
  });

  it('refuses a compressed body that expands past the cap, and what is not HTTP', () => {
    const bomb = gzipSync(Buffer.alloc(1024 * 1024));
    expect(parseHttpResponse(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n'), bomb]), 1024, 4096)).toEqual({
      error: 'the decoded body is larger than 4096 bytes',
    });
    expect(parseHttpResponse(Buffer.from('GET / HTTP/1.1\r\n\r\n'), 1024, 1024)).toEqual({
      error: 'not an HTTP response: "GET / HTTP/1.1"',
    });
    expect(parseHttpResponse(Buffer.from('HTTP/1.1 200 OK\r\nX: y'), 1024, 1024)).toEqual({
      error: 'no end of the HTTP header within 1024 bytes',
    });
  });
});
