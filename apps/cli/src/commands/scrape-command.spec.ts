import { CliUsageError } from '../errors';
import { parseCookies, parseHeaders, parseWaitFor } from './scrape-command';

describe('scrape command options', () => {
  it('parses headers at the first colon and cookies at the first equals sign', () => {
    expect(parseHeaders(['X-Api-Key: a:b', 'Accept-Language:de'])).toEqual({ 'X-Api-Key': 'a:b', 'Accept-Language': 'de' });
    expect(parseCookies(['session=abc=def', 'b=1'])).toEqual({ session: 'abc=def', b: '1' });
    expect(() => parseHeaders(['no colon'])).toThrow(CliUsageError);
    expect(() => parseCookies(['=x'])).toThrow(CliUsageError);
  });

  it('reads a whole number as milliseconds and anything else as a selector', () => {
    expect(parseWaitFor('1500')).toEqual({ ms: 1500 });
    expect(parseWaitFor('#late')).toEqual({ selector: '#late' });
    expect(parseWaitFor('div.x > p')).toEqual({ selector: 'div.x > p' });
  });
});
