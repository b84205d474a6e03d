import { JobAnnouncer } from './job-announcer';
import { jobChannel } from './job.types';

describe('JobAnnouncer (one bus message per interval per job while events keep coming)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function recorder() {
    const sent: Array<{ channel: string; message: unknown }> = [];
    return { sent, bus: { publish: async (channel: string, message: unknown) => void sent.push({ channel, message }) } };
  }

  it('announces the first event at once, then the latest of a burst once at the end of the interval', async () => {
    const { sent, bus } = recorder();
    const announcer = new JobAnnouncer(bus, 100);
    await announcer.announce('j1', { seq: 1, event: 'result' });
    expect(sent).toEqual([{ channel: jobChannel('j1'), message: { seq: 1, event: 'result' } }]);
    for (let seq = 2; seq <= 5; seq++) {
      await jest.advanceTimersByTimeAsync(10);
      await announcer.announce('j1', { seq, event: 'result' });
    }
    expect(sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(sent.map((s) => s.message)).toEqual([
      { seq: 1, event: 'result' },
      { seq: 5, event: 'result' },
    ]);
    // Quiet for an interval: the next event goes out at once again.
    await jest.advanceTimersByTimeAsync(150);
    await announcer.announce('j1', { seq: 6, event: 'status' });
    expect(sent).toHaveLength(3);
  });

  it('sends a terminal event at once, with what was pending folded into it', async () => {
    const { sent, bus } = recorder();
    const announcer = new JobAnnouncer(bus, 100);
    await announcer.announce('j2', { seq: 1, event: 'result' });
    await announcer.announce('j2', { seq: 2, event: 'result' });
    await announcer.announce('j2', { seq: 3, event: 'complete', terminal: true });
    expect(sent.map((s) => s.message)).toEqual([
      { seq: 1, event: 'result' },
      { seq: 3, event: 'complete', terminal: true },
    ]);
    await jest.advanceTimersByTimeAsync(500); // the cancelled pending announcement never follows
    expect(sent).toHaveLength(2);
  });

  it('keeps jobs apart', async () => {
    const { sent, bus } = recorder();
    const announcer = new JobAnnouncer(bus, 100);
    await announcer.announce('a', { seq: 1, event: 'result' });
    await announcer.announce('b', { seq: 1, event: 'result' });
    expect(sent.map((s) => s.channel)).toEqual([jobChannel('a'), jobChannel('b')]);
  });
});
