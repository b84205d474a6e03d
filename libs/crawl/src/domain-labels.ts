import { siteOf } from './url-canon';

/**
 * Bounded metric labels for domains: the first `limit` registrable domains a process sees keep their
 * name, every later one is `other`. A crawler that meets 100,000 domains still exports at most
 * `limit` + 1 series per metric (the per-domain detail is in the crawl map and the logs).
 */
export class DomainLabels {
  private readonly named = new Set<string>();

  constructor(private readonly limit: number) {}

  label(host: string): string {
    const domain = siteOf(host);
    if (this.named.has(domain)) return domain;
    if (this.named.size < this.limit) {
      this.named.add(domain);
      return domain;
    }
    return 'other';
  }
}
