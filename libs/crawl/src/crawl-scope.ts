import { RE2JS } from 're2js';
import type { LogoutLinks } from '@app/auth-profiles';
import type { CrawlOptions } from '@app/sites';
import { canonicalize, canonRulesOf, siteOf, wwwTwins, type CanonicalUrl, type CanonRules } from './url-canon';

/** What the scope rules out (a `skipped` entry's error_category; the other skip reasons are decided elsewhere). */
export type ScopeReason = 'filtered' | 'max_depth' | 'logout_link';

export type ScopeDecision =
  { admit: true; target: CanonicalUrl } | { admit: false; target: CanonicalUrl; reason: ScopeReason; why: string };

/**
 * Which discovered links a crawl follows: depth, same registrable domain, `exclude_patterns`,
 * `include_patterns` and `follow_pattern` (regular expressions searched in the absolute URL, run by
 * RE2: linear time whatever the pattern). `follow_selector` acts earlier: only the links it selects
 * are offered here at all. With an auth profile, its logout links are never followed (`logout_link`,
 * docs/auth-profiles.md "Logout links").
 */
export class CrawlScope {
  /** The crawl's canonical rules (`canonicalize`, `ignore_query_params`); its www aliases are learned as the crawl runs. */
  readonly rules: CanonRules;
  private readonly aliases = new Map<string, string>();
  private readonly site: string;
  private readonly follow: RE2JS | null;
  private readonly include: RE2JS[];
  private readonly exclude: RE2JS[];

  constructor(
    seed: CanonicalUrl,
    private readonly options: CrawlOptions,
    /** A crawl with an auth profile: the links that would end its session. */
    private readonly logout: Pick<LogoutLinks, 'why'> | null = null,
  ) {
    this.rules = { ...canonRulesOf(options), aliases: this.aliases };
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
    const target = this.canonical(rawUrl, base);
    if (!target) return null;
    if (depth > this.options.max_depth) {
      return { admit: false, target, reason: 'max_depth', why: `deeper than max_depth ${this.options.max_depth}` };
    }
    const outside = this.outsideDomain(target);
    if (outside) return { admit: false, target, reason: 'filtered', why: outside };
    const logout = this.logout?.why(target.url);
    if (logout) return { admit: false, target, reason: 'logout_link', why: logout };
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

  /** A URL by this crawl's canonical rules (docs/crawl.md "Canonical addresses"). */
  canonical(rawUrl: string, base?: string): CanonicalUrl | null {
    return canonicalize(rawUrl, base, this.rules);
  }

  /**
   * `canonicalize: strict`: the site showed `from` and `to` (a `www.` host and its bare twin) to be one, by a redirect or
   * rel=canonical; `from` is read as `to` from now on. Returns whether this was new (false: not strict, not twins, or known).
   */
  learnAlias(from: string, to: string): boolean {
    if (!this.rules.strict || !wwwTwins(from, to) || this.aliases.has(from) || this.aliases.has(to)) return false;
    this.aliases.set(from, to);
    return true;
  }

  /** The www aliases learned so far (kept with the crawl state, for a later owner). */
  knownAliases(): Record<string, string> {
    return Object.fromEntries(this.aliases);
  }

  /** With same_domain_only, a reason when `target` is on another registrable domain than the seed. */
  outsideDomain(target: CanonicalUrl): string | null {
    if (!this.options.same_domain_only || siteOf(target.host) === this.site) return null;
    return `outside the seed's domain ${this.site} (same_domain_only)`;
  }
}
