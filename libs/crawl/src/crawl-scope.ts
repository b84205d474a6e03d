import { RE2JS } from 're2js';
import type { CrawlOptions } from '@app/sites';
import { canonicalize, siteOf, type CanonicalUrl } from './url-canon';

/** What the scope rules out (a `skipped` entry's error_category; the other skip reasons are decided elsewhere). */
export type ScopeReason = 'filtered' | 'max_depth';

export type ScopeDecision =
  { admit: true; target: CanonicalUrl } | { admit: false; target: CanonicalUrl; reason: ScopeReason; why: string };

/**
 * Which discovered links a crawl follows: depth, same registrable domain, `exclude_patterns`,
 * `include_patterns` and `follow_pattern` (regular expressions searched in the absolute URL, run by
 * RE2: linear time whatever the pattern). `follow_selector` acts earlier: only the links it selects
 * are offered here at all.
 */
export class CrawlScope {
  private readonly site: string;
  private readonly follow: RE2JS | null;
  private readonly include: RE2JS[];
  private readonly exclude: RE2JS[];

  constructor(
    seed: CanonicalUrl,
    private readonly options: CrawlOptions,
  ) {
    this.site = siteOf(seed.host);
    this.follow = options.follow_pattern ? RE2JS.compile(options.follow_pattern) : null;
    this.include = options.include_patterns.map((p) => RE2JS.compile(p));
    this.exclude = options.exclude_patterns.map((p) => RE2JS.compile(p));
  }

  /**
   * Null when the link is not a web URL at all (mailto:, javascript:, garbage): not recorded.
   * Sitemap URLs (`fromSitemap`) are not links: follow_pattern does not apply to them, the rest does.
   */
  decide(rawUrl: string, depth: number, base?: string, fromSitemap = false): ScopeDecision | null {
    const target = canonicalize(rawUrl, base);
    if (!target) return null;
    if (depth > this.options.max_depth) {
      return { admit: false, target, reason: 'max_depth', why: `deeper than max_depth ${this.options.max_depth}` };
    }
    const outside = this.outsideDomain(target);
    if (outside) return { admit: false, target, reason: 'filtered', why: outside };
    if (this.exclude.some((re) => re.matcher(target.url).find())) {
      return { admit: false, target, reason: 'filtered', why: 'matches an exclude_patterns entry' };
    }
    if (this.include.length > 0 && !this.include.some((re) => re.matcher(target.url).find())) {
      return { admit: false, target, reason: 'filtered', why: 'matches no include_patterns entry' };
    }
    if (this.follow && !fromSitemap && !this.follow.matcher(target.url).find()) {
      return { admit: false, target, reason: 'filtered', why: 'does not match follow_pattern' };
    }
    return { admit: true, target };
  }

  /** With same_domain_only, a reason when `target` is on another registrable domain than the seed. */
  outsideDomain(target: CanonicalUrl): string | null {
    if (!this.options.same_domain_only || siteOf(target.host) === this.site) return null;
    return `outside the seed's domain ${this.site} (same_domain_only)`;
  }
}
