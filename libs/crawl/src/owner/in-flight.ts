import type { WindowEntry } from './frontier-window';
import type { HostSchedule } from './host-schedule';

/**
 * The pages this owner has admitted (claimed, or adopted from an earlier owner) and not yet settled, by
 * entry id, with their hosts' in-flight counts kept in step. Admission adds, the committer's settle
 * removes; the frontier asks so that it never loads a page twice.
 */
export class InFlightPages {
  private readonly pages = new Map<string, WindowEntry>();

  constructor(private readonly hosts: HostSchedule) {}

  /** False when the page is in flight already (then nothing changes). */
  add(entry: WindowEntry): boolean {
    if (this.pages.has(entry.id)) return false;
    this.pages.set(entry.id, entry);
    this.hosts.started(entry.host);
    return true;
  }

  remove(entry: WindowEntry): void {
    if (!this.pages.delete(entry.id)) return;
    this.hosts.ended(entry.host);
  }

  get(id: string): WindowEntry | undefined {
    return this.pages.get(id);
  }

  has(id: string): boolean {
    return this.pages.has(id);
  }

  get size(): number {
    return this.pages.size;
  }

  /** The first `max` pages in flight (their URL and dispatch number), for a stalled owner's log line. */
  sample(max: number): string[] {
    const out: string[] = [];
    for (const entry of this.pages.values()) {
      if (out.length >= max) break;
      out.push(`${entry.url}#${entry.dispatch}`);
    }
    return out;
  }
}
