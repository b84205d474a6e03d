/**
 * A metric label whose values cannot grow without bound: the first `limit` distinct values a process
 * sees keep their name, every later one is reported as `other`. Use it for any label fed by the
 * outside world (domains, model names): a crawler that meets 100,000 domains still exports at most
 * `limit` + 1 series per metric for that label. The detail behind `other` belongs in logs and the
 * crawl map, not in Prometheus.
 */
export class BoundedLabel {
  static readonly OTHER = 'other';
  private readonly named = new Set<string>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`BoundedLabel limit must be a non-negative integer, not ${limit}`);
  }

  /** The label value to record for `value`. */
  label(value: string): string {
    if (this.named.has(value)) return value;
    if (this.named.size < this.limit && value !== BoundedLabel.OTHER) {
      this.named.add(value);
      return value;
    }
    return BoundedLabel.OTHER;
  }
}
