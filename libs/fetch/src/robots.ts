import robotsParser from 'robots-parser';
import { AppError } from '@app/core';
import { fetchError } from './errors';
import { FetchControlUnusable } from './fetch-control/control-unusable';
import type { StaticFetcher } from './static-fetcher';

export interface RobotsCacheOptions {
  fetcher: Pick<StaticFetcher, 'fetchRaw'>;
  /** Product token matched against User-agent groups, and sent when fetching robots.txt. */
  userAgent?: string;
  timeoutMs?: number;
  /** Google reads the first 500 KiB; a larger robots.txt is treated as absent. */
  maxBytes?: number;
  /** How long a "disallow all" caused by a 5xx/unreachable robots.txt lasts before it is fetched again. */
  errorTtlMs?: number;
  now?: () => number;
}

type Rules =
  | { kind: 'parsed'; robot: ReturnType<typeof robotsParser> }
  | { kind: 'allow-all'; why: string }
  | { kind: 'disallow-all'; why: string; until: number };

/**
 * robots.txt per origin for one crawl: fetched once (through the guarded static fetcher), parsed
 * with robots-parser. Error handling follows Google's documented behaviour: 4xx = no rules
 * (allow all); 429, 5xx and unreachable = disallow all, temporarily.
 */
export class RobotsCache {
  private readonly entries = new Map<string, Promise<Rules>>();
  private readonly fetcher: Pick<StaticFetcher, 'fetchRaw'>;
  readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly errorTtlMs: number;
  private readonly now: () => number;

  constructor(options: RobotsCacheOptions) {
    this.fetcher = options.fetcher;
    this.userAgent = options.userAgent ?? 'GleanerBot';
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBytes = options.maxBytes ?? 500 * 1024;
    this.errorTtlMs = options.errorTtlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  async isAllowed(url: string): Promise<boolean> {
    const rules = await this.rules(url);
    if (rules.kind === 'allow-all') return true;
    if (rules.kind === 'disallow-all') return false;
    return rules.robot.isAllowed(url, this.userAgent) ?? true;
  }

  /**
   * The verdict for a crawl: `allowed`, `disallowed` by the rules, or `unavailable` for now (robots.txt
   * answered 5xx or 429, or was unreachable: treated as "disallow all" until `retryAt`, per RFC 9309).
   */
  async check(url: string): Promise<{ verdict: 'allowed' | 'disallowed' | 'unavailable'; why: string; retryAt?: number }> {
    const rules = await this.rules(url);
    if (rules.kind === 'allow-all') return { verdict: 'allowed', why: rules.why };
    if (rules.kind === 'disallow-all') return { verdict: 'unavailable', why: rules.why, retryAt: rules.until };
    const allowed = rules.robot.isAllowed(url, this.userAgent) ?? true;
    return allowed
      ? { verdict: 'allowed', why: 'robots.txt allows it' }
      : { verdict: 'disallowed', why: `robots.txt disallows it for ${this.userAgent}` };
  }

  /** Throws AppError(robots_disallowed) when robots.txt forbids the URL. */
  async assertAllowed(url: string): Promise<void> {
    if (!(await this.isAllowed(url))) {
      const rules = await this.rules(url);
      const why = rules.kind === 'disallow-all' ? ` (${rules.why})` : '';
      throw fetchError('robots_disallowed', `robots.txt disallows ${url} for ${this.userAgent}${why}.`, { url });
    }
  }

  /** Crawl-delay for our user agent on the URL's origin, in seconds. */
  async crawlDelaySeconds(url: string): Promise<number | undefined> {
    const rules = await this.rules(url);
    return rules.kind === 'parsed' ? rules.robot.getCrawlDelay(this.userAgent) : undefined;
  }

  async sitemaps(url: string): Promise<string[]> {
    const rules = await this.rules(url);
    return rules.kind === 'parsed' ? rules.robot.getSitemaps() : [];
  }

  private async rules(url: string): Promise<Rules> {
    const origin = new URL(url).origin;
    const cached = this.entries.get(origin);
    if (cached) {
      const rules = await cached;
      if (rules.kind !== 'disallow-all' || rules.until > this.now()) return rules;
    }
    const pending = this.load(origin);
    this.entries.set(origin, pending);
    return pending;
  }

  private async load(origin: string): Promise<Rules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const res = await this.fetcher.fetchRaw(robotsUrl, {
        timeoutMs: this.timeoutMs,
        maxBytes: this.maxBytes,
        headers: { 'User-Agent': this.userAgent },
      });
      if (res.status >= 200 && res.status < 300) return { kind: 'parsed', robot: robotsParser(robotsUrl, res.html) };
      if (res.status === 429 || res.status >= 500) return this.disallow(`robots.txt answered HTTP ${res.status}`);
      return { kind: 'allow-all', why: `robots.txt answered HTTP ${res.status}` };
    } catch (error) {
      if (error instanceof AppError) {
        // The host is forbidden, or the job's fetch control cannot be honoured (its proxy pool is gone): the page
        // fails on it, not on robots.txt.
        if (error.category === 'ssrf_blocked' || error instanceof FetchControlUnusable) throw error;
        if (error.category === 'fetch_error' || error.category === 'timeout')
          return this.disallow(`robots.txt unreachable: ${error.message}`);
        // content_too_large / unsupported_content: unusable file, treated like none.
        return { kind: 'allow-all', why: error.message };
      }
      return this.disallow(`robots.txt unreachable: ${(error as Error).message}`);
    }
  }

  private disallow(why: string): Rules {
    return { kind: 'disallow-all', why, until: this.now() + this.errorTtlMs };
  }
}
