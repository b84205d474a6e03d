import { BoundedLabel } from '@app/observability';
import { siteOf } from '../url-canon';

/**
 * Bounded metric labels for domains: the first `limit` registrable domains a process sees keep their
 * name, every later one is `other`. A crawler that meets 100,000 domains still exports at most
 * `limit` + 1 series per metric (the per-domain detail is in the crawl map and the logs).
 */
export class DomainLabels {
  private readonly bounded: BoundedLabel;

  constructor(limit: number) {
    this.bounded = new BoundedLabel(limit);
  }

  label(host: string): string {
    return this.bounded.label(siteOf(host));
  }
}
