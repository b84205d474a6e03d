import { AppError } from '@app/core';
import { UnconfiguredProxyPool } from '@app/fetch';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { PAGE_RETRY_LIMITS } from '../page-retry-policy';
import type { WindowEntry } from './frontier-window';
import { HostSchedule } from './host-schedule';
import { ROBOTS_AHEAD_MIN, RobotsGate, type RobotsSource } from './robots-gate';

type Check = Awaited<ReturnType<RobotsSource['check']>>;

/** robots.txt answers by host, held at a gate until the test opens it. */
function robotsOf(answers: Record<string, { check: Check | Error; delay?: number }>) {
  const asked: string[] = [];
  let open!: () => void;
  let gate = Promise.resolve();
  const source: RobotsSource = {
    async check(url) {
      const host = new URL(url).hostname;
      asked.push(host);
      await gate;
      const answer = answers[host]?.check ?? { verdict: 'allowed', why: 'no robots.txt' };
      if (answer instanceof Error) throw answer;
      return answer;
    },
    crawlDelaySeconds: async (url) => answers[new URL(url).hostname]?.delay,
    sitemaps: async () => [],
  };
  return {
    source,
    asked,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    open: () => open(),
  };
}

describe('RobotsGate', () => {
  let f: OwnerFixture;
  let hosts: HostSchedule;
  let delays: Array<[string, number]>;
  let closed: boolean;

  async function gateWith(robots: ReturnType<typeof robotsOf>, options: Parameters<typeof ownerFixture>[0] = {}) {
    f = await ownerFixture(options);
    hosts = new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 4 });
    delays = [];
    closed = false;
    return new RobotsGate(f.run, robots.source, { setCrawlDelay: async (host, ms) => void delays.push([host, ms]) }, hosts, {
      crawlDelayMaxMs: 30_000,
      robotsRetryMs: 60_000,
      admissionClosed: () => closed,
    });
  }
  afterEach(() => f.close());
  const entry = (url: string, deferrals = 0): WindowEntry => ({
    id: url,
    key: url,
    url,
    host: new URL(url).hostname,
    depth: 1,
    parentUrl: null,
    seq: 1,
    extract: true,
    ticket: null,
    dispatch: 0,
    retryCount: 0,
    rateLimitRetries: 0,
    robotsDeferrals: deferrals,
    notBefore: 0,
  });

  it('allows, skips with the reason, and defers an unreadable robots.txt a limited number of times; a forbidden host is left to the address guard', async () => {
    const robots = robotsOf({
      'no.test': { check: { verdict: 'disallowed', why: 'robots.txt disallows it for GleanerBot' } },
      'down.test': { check: { verdict: 'unavailable', why: 'robots.txt answered HTTP 503', retryAt: 777 } },
      'blocked.test': { check: new AppError('upstream-failure', 'blocked', { category: 'ssrf_blocked', detail: 'a private address' }) },
      'pool-gone.test': { check: new UnconfiguredProxyPool('removed') },
    });
    const gate = await gateWith(robots);
    expect(await gate.verdict(entry('http://yes.test/a'))).toEqual({ kind: 'allow' });
    expect(await gate.verdict(entry('http://no.test/a'))).toEqual({ kind: 'skip', why: 'robots.txt disallows it for GleanerBot' });
    expect(await gate.verdict(entry('http://down.test/a'))).toEqual({ kind: 'defer', notBefore: 777 });
    expect(await gate.verdict(entry('http://down.test/a', PAGE_RETRY_LIMITS.robotsDeferrals))).toEqual({
      kind: 'skip',
      why: 'robots.txt answered HTTP 503',
    });
    // The page itself then fails ssrf_blocked (the guard refuses its fetch), as its own page.
    expect(await gate.verdict(entry('http://blocked.test/a'))).toEqual({ kind: 'allow' });
    // The crawl's proxy pool is gone: the page fails as its fetch does (docs/proxies.md), not skipped for robots.txt.
    expect(await gate.verdict(entry('http://pool-gone.test/a'))).toEqual({ kind: 'allow' });
  });

  it('applies a Crawl-delay on the first look at an origin, and refuses a host whose delay is over the maximum', async () => {
    const gate = await gateWith(
      robotsOf({
        'slow.test': { check: { verdict: 'allowed', why: '' }, delay: 2 },
        'glacial.test': { check: { verdict: 'allowed', why: '' }, delay: 3600 },
      }),
    );
    expect(await gate.verdict(entry('http://slow.test/a'))).toEqual({ kind: 'allow' });
    await gate.verdict(entry('http://slow.test/b'));
    expect(delays).toEqual([['slow.test', 2000]]);
    expect(hosts.cap('slow.test')).toBe(1);
    expect(await gate.verdict(entry('http://glacial.test/a'))).toEqual({
      kind: 'skip',
      why: 'robots.txt asks for a Crawl-delay of 3600 s, over the maximum of 30 s',
    });
  });

  it('does not look at robots.txt when the crawl does not respect it', async () => {
    const robots = robotsOf({ 'no.test': { check: { verdict: 'disallowed', why: 'no' } } });
    const gate = await gateWith(robots, { respect_robots: false });
    expect(await gate.verdict(entry('http://no.test/a'))).toEqual({ kind: 'allow' });
    gate.readAhead(entry('http://no.test/a'));
    expect(robots.asked).toEqual([]);
  });

  it('reads ahead max(8, concurrency) robots.txt at once, once per host, and at most max_pages hosts', async () => {
    const robots = robotsOf({});
    robots.hold();
    const gate = await gateWith(robots, { concurrency: 2, max_pages: 12 });
    for (let i = 0; i < 15; i++) gate.readAhead(entry(`http://h${i}.test/`));
    gate.readAhead(entry('http://h0.test/other'));
    expect(robots.asked).toHaveLength(ROBOTS_AHEAD_MIN);
    expect(gate.hostsReadAhead).toBe(12);
    robots.open();
    while (robots.asked.length < 12) await new Promise((resolve) => setImmediate(resolve));
    expect(new Set(robots.asked).size).toBe(12);
  });

  it('reads nothing ahead once admission has closed', async () => {
    const robots = robotsOf({});
    const gate = await gateWith(robots);
    closed = true;
    gate.readAhead(entry('http://a.test/'));
    expect(robots.asked).toEqual([]);
  });
});
