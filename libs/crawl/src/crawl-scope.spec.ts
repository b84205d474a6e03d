import { LogoutLinks } from '@app/auth-profiles';
import { resolveCrawlOptions, type CrawlOptions } from '@app/sites';
import { CrawlScope } from './crawl-scope';
import { canonicalize } from './url-canon';

// Every option but max_depth at its default (one definition: CRAWL_OPTION_DEFAULTS).
const base: CrawlOptions = resolveCrawlOptions({ max_depth: 2 });
const seed = canonicalize('https://www.shop.example/')!;

describe('CrawlScope', () => {
  it('admits same-domain links (subdomains included) within max_depth', () => {
    const scope = new CrawlScope(seed, base);
    expect(scope.decide('/p/1', 1, seed.url)).toMatchObject({ admit: true, target: { url: 'https://www.shop.example/p/1' } });
    expect(scope.decide('https://blog.shop.example/x', 2)).toMatchObject({ admit: true });
    expect(scope.decide('/deep', 3, seed.url)).toMatchObject({ admit: false, reason: 'max_depth' });
  });

  it('filters other domains only with same_domain_only', () => {
    expect(new CrawlScope(seed, base).decide('https://other.example/', 1)).toMatchObject({ admit: false, reason: 'filtered' });
    expect(new CrawlScope(seed, { ...base, same_domain_only: false }).decide('https://other.example/', 1)).toMatchObject({ admit: true });
  });

  it('applies exclude, include and follow patterns (searched, RE2)', () => {
    const scope = new CrawlScope(seed, {
      ...base,
      include_patterns: ['/p/', '/c/'],
      exclude_patterns: ['\\?sort='],
      follow_pattern: '/(p|c)/\\d+$',
    });
    expect(scope.decide('/p/12', 1, seed.url)).toMatchObject({ admit: true });
    expect(scope.decide('/p/12?sort=asc', 1, seed.url)).toMatchObject({ admit: false, why: 'matches an exclude_patterns entry' });
    expect(scope.decide('/about', 1, seed.url)).toMatchObject({ admit: false, why: 'matches no include_patterns entry' });
    expect(scope.decide('/p/x', 1, seed.url)).toMatchObject({ admit: false, why: 'does not match follow_pattern' });
  });

  it('runs a pattern that backtracks catastrophically elsewhere, on a long input, to an answer', () => {
    const scope = new CrawlScope(seed, { ...base, follow_pattern: '^(a+)+$' });
    expect(scope.decide(`/${'a'.repeat(50_000)}!`, 1, seed.url)).toMatchObject({ admit: false, reason: 'filtered' });
  });

  it("with an auth profile, skips its hosts' logout links (logout_link), links to other hosts are followed", () => {
    const scope = new CrawlScope(seed, { ...base, same_domain_only: false }, new LogoutLinks(['www.shop.example'], ['^/bye$']));
    expect(scope.decide('/logout', 1, seed.url)).toMatchObject({
      admit: false,
      reason: 'logout_link',
      why: expect.stringMatching(/end the session/),
    });
    expect(scope.decide('/account?action=sign-out', 1, seed.url)).toMatchObject({ admit: false, reason: 'logout_link' });
    expect(scope.decide('/bye', 1, seed.url)).toMatchObject({ admit: false, reason: 'logout_link' });
    expect(scope.decide('/p/1', 1, seed.url)).toMatchObject({ admit: true });
    expect(scope.decide('https://other.example/logout', 1)).toMatchObject({ admit: true });
    // Deeper than max_depth first: the depth is why it is not followed.
    expect(scope.decide('/logout', 3, seed.url)).toMatchObject({ admit: false, reason: 'max_depth' });
    // Without a profile, a logout link is a link.
    expect(new CrawlScope(seed, base).decide('/logout', 1, seed.url)).toMatchObject({ admit: true });
  });

  it('ignores non-web links', () => {
    const scope = new CrawlScope(seed, base);
    expect(scope.decide('mailto:a@b.c', 1)).toBeNull();
    expect(scope.decide('javascript:void(0)', 1)).toBeNull();
  });
});
