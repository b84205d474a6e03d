import { HostSchedule } from './host-schedule';

const rules = { delayMs: 0, minIntervalMs: 0, maxConcurrency: 2 };

describe('HostSchedule', () => {
  it('lets a host start up to its cap, and again once a page ends', () => {
    const hosts = new HostSchedule(rules);
    expect(hosts.canStart('a.test', 0)).toBe(true);
    hosts.started('a.test');
    hosts.started('a.test');
    expect(hosts.canStart('a.test', 0)).toBe(false);
    expect(hosts.canStart('b.test', 0)).toBe(true);
    hosts.ended('a.test');
    expect(hosts.canStart('a.test', 0)).toBe(true);
    expect(hosts.inFlight('a.test')).toBe(1);
  });

  it('serves a spaced host one page at a time (delay_ms, the floor, or its Crawl-delay)', () => {
    expect(new HostSchedule({ ...rules, delayMs: 100 }).cap('a.test')).toBe(1);
    expect(new HostSchedule({ ...rules, minIntervalMs: 100 }).cap('a.test')).toBe(1);
    const hosts = new HostSchedule(rules);
    hosts.space('slow.test', 2000);
    expect(hosts.cap('slow.test')).toBe(1);
    expect(hosts.cap('fast.test')).toBe(2);
  });

  it('holds a paused host until its pause ends, and says when the first one resumes', () => {
    const hosts = new HostSchedule(rules);
    hosts.pause('a.test', 1000);
    hosts.pause('a.test', 500); // an earlier end never shortens a pause
    hosts.pause('b.test', 800);
    expect(hosts.canStart('a.test', 999)).toBe(false);
    expect(hosts.canStart('a.test', 1000)).toBe(true);
    expect(hosts.nextResumeAt(0)).toBe(800);
    expect(hosts.nextResumeAt(800)).toBe(1000);
    expect(hosts.nextResumeAt(1000)).toBeNull();
  });

  it('remembers a host too slow to crawl, and forgets plain hosts once idle', () => {
    const hosts = new HostSchedule(rules);
    hosts.markTooSlow('slow.test', 'Crawl-delay of 3600 s');
    expect(hosts.tooSlow('slow.test')).toBe('Crawl-delay of 3600 s');
    hosts.started('plain.test');
    hosts.ended('plain.test');
    hosts.ended('plain.test'); // never below zero
    expect(hosts.inFlight('plain.test')).toBe(0);
    expect(hosts.tooSlow('plain.test')).toBeNull();
  });
});
