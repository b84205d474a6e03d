import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { SECRET_MASK } from '../saved-fetch-secrets';
import { CrawlOptionsDto } from './crawl-options.dto';
import { SavedCrawlOptionsDto } from './saved-crawl-options.dto';

const broken = (cls: typeof CrawlOptionsDto | typeof SavedCrawlOptionsDto, value: object) =>
  validateSync(plainToInstance(cls, value), { whitelist: true, forbidNonWhitelisted: true }).map((e) => e.property);

describe('saved crawl options: the crawl options, with headers and cookies that may be sent back masked', () => {
  it('takes the mask as a value, where crawl options do not', () => {
    const masked = { headers: { Authorization: SECRET_MASK }, cookies: { session: SECRET_MASK } };
    expect(broken(SavedCrawlOptionsDto, masked)).toEqual([]);
    expect(broken(CrawlOptionsDto, masked).sort()).toEqual(['cookies', 'headers']);
    // Only the mask itself: a value that merely contains it is still beyond Latin-1.
    expect(broken(SavedCrawlOptionsDto, { headers: { A: `x${SECRET_MASK}` }, cookies: { b: `${SECRET_MASK} ` } }).sort()).toEqual([
      'cookies',
      'headers',
    ]);
  });

  it('keeps the crawl options rules: forbidden and hop-by-hop headers, bad cookie values, every other option', () => {
    expect(broken(SavedCrawlOptionsDto, { headers: { Host: 'x' } })).toEqual(['headers']);
    expect(broken(SavedCrawlOptionsDto, { headers: { 'Proxy-Authorization': 'x' } })).toEqual(['headers']);
    expect(broken(SavedCrawlOptionsDto, { headers: { 'X-A': 'line\nbreak' } })).toEqual(['headers']);
    expect(broken(SavedCrawlOptionsDto, { cookies: { s: 'a b' } })).toEqual(['cookies']);
    expect(broken(SavedCrawlOptionsDto, { max_pages: 0, user_agent: 'UA/1' })).toEqual(['max_pages']);
    expect(broken(SavedCrawlOptionsDto, { headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`H${i}`, 'v'])) })).toEqual([
      'headers',
    ]);
  });
});
