import type { EventBusPort } from '@app/events';
import { jobChannel } from './job.types';

/**
 * A job's channel is announced at most once per this interval while its events keep coming (a crawl stores a
 * hundred `result` events a second): the message only wakes readers, who read the stored log from their last
 * seq (JobStreamService), so one announcement for several events loses none of them. The first event after a
 * quiet spell, and a job's terminal event, go out at once.
 */
export const ANNOUNCE_EVERY_MS = 100;

export interface Announcement {
  seq: number;
  event: string;
  terminal?: true;
}

interface Pending {
  last: number;
  timer?: NodeJS.Timeout;
  next?: Announcement;
}

/** Coalesces the "something new" messages of each job's channel (docs/api.md "Events"). */
export class JobAnnouncer {
  private readonly jobs = new Map<string, Pending>();

  constructor(
    private readonly bus: Pick<EventBusPort, 'publish'>,
    private readonly everyMs = ANNOUNCE_EVERY_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves once announced, or once the announcement is scheduled (a later one then carries it). */
  async announce(jobId: string, message: Announcement): Promise<void> {
    const now = this.now();
    const state = this.jobs.get(jobId);
    if (message.terminal) {
      if (state?.timer) clearTimeout(state.timer);
      this.jobs.delete(jobId);
      await this.bus.publish(jobChannel(jobId), message);
      return;
    }
    if (state?.timer) {
      if (!state.next || message.seq >= state.next.seq) state.next = message;
      return;
    }
    if (!state || now - state.last >= this.everyMs) {
      if (this.jobs.size > 1000) this.forgetQuiet(now);
      this.jobs.set(jobId, { last: now });
      await this.bus.publish(jobChannel(jobId), message);
      return;
    }
    state.next = message;
    const pending = state;
    state.timer = setTimeout(
      () => {
        const next = pending.next;
        pending.timer = undefined;
        pending.next = undefined;
        pending.last = this.now();
        // Lost, the readers' own slow poll finds the events (as with any lost bus message).
        if (next) void this.bus.publish(jobChannel(jobId), next).catch(() => undefined);
      },
      pending.last + this.everyMs - now,
    );
    state.timer.unref();
  }

  /** Jobs with nothing pending and quiet for a while are forgotten (their next event goes out at once anyway). */
  private forgetQuiet(now: number): void {
    for (const [jobId, state] of this.jobs) if (!state.timer && now - state.last >= this.everyMs) this.jobs.delete(jobId);
  }
}
