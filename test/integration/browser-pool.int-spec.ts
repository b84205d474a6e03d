/**
 * The browser pool's lifecycle with a real Chromium: never more process trees than its browsers (a retiring
 * browser counts until it closed), memory-aware admission (a fake cgroup), and the reaping of a wedged browser
 * whose owner was killed with -9.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AddressGuard,
  BrowserPool,
  CgroupMemory,
  DynamicFetcher,
  MemoryAdmission,
  markedBrowsers,
  ownerMark,
  reapOrphanedBrowsers,
} from '@app/fetch';
import { startJsSite, type JsSite } from '../soak/js-site';
import { browserTrees, stillRunning, type ProcInfo } from '../soak/process-trees';
import { CHROMIUM, failure, testResolver } from './fetch-helpers';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');

async function waitFor(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const mine = () => markedBrowsers().filter((b) => b.owner === ownerMark());

describe('BrowserPool with Chromium', () => {
  const pools: BrowserPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('counts a retiring browser against maxBrowsers: the next lease waits for it to close', async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, maxBrowsers: 1, maxContextsPerBrowser: 2, retireAfterPages: 2 });
    pools.push(pool);
    const first = await pool.acquire();
    const second = await pool.acquire(); // its second lease retires the browser
    expect(pool.stats()).toMatchObject({ browsers: 0, retiringBrowsers: 1, launches: 1 });
    expect(mine()).toHaveLength(1);

    let third: Awaited<ReturnType<BrowserPool['acquire']>> | undefined;
    const acquiring = pool.acquire().then((lease) => (third = lease));
    // Either it waits (the rule) or it launched a second browser beside the retiring one (the fault).
    await waitFor(() => pool.stats().waiting === 1 || pool.stats().launches > 1, 'the third lease to wait or launch');
    expect(pool.stats()).toMatchObject({ waiting: 1, launches: 1 });
    await first.release();
    expect(pool.stats()).toMatchObject({ waiting: 1, launches: 1 }); // the retiring browser still serves `second`
    await second.release(); // the retiring browser closes, then the waiting lease gets a new one
    await acquiring;
    expect(pool.stats()).toMatchObject({ browsers: 1, retiringBrowsers: 0, launches: 2, waiting: 0 });
    expect(mine()).toHaveLength(1);
    await third!.release();
  });

  it('opens no browser while the container is past its memory share, and opens it once memory came back', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gleaner-cgroup-'));
    try {
      mkdirSync(join(root, 'sys'), { recursive: true });
      writeFileSync(join(root, 'self-cgroup'), '0::/\n');
      writeFileSync(join(root, 'sys', 'memory.max'), String(1000 * 1_048_576));
      writeFileSync(join(root, 'sys', 'memory.stat'), 'inactive_file 0\n');
      writeFileSync(join(root, 'sys', 'memory.current'), String(900 * 1_048_576));
      const memory = new CgroupMemory({ root: join(root, 'sys'), selfCgroup: join(root, 'self-cgroup') });
      const pool = new BrowserPool({ executablePath: CHROMIUM, admission: new MemoryAdmission({ share: 0.8, memory, pollMs: 20 }) });
      pools.push(pool);

      let leased = false;
      const acquiring = pool.acquire().then((lease) => {
        leased = true;
        return lease;
      });
      await waitFor(() => pool.stats().waitingForMemory === 1, 'the lease to wait for memory');
      expect(leased).toBe(false);
      expect(pool.stats()).toMatchObject({ launches: 0, browsers: 0 });

      writeFileSync(join(root, 'sys', 'memory.current'), String(500 * 1_048_576));
      const lease = await acquiring;
      expect(pool.stats()).toMatchObject({ launches: 1, waitingForMemory: 0 });
      const context = await lease.browser.newContext();
      await context.close();
      await lease.release();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('launches Chromium with the egress switches and one effective --disable-features that keeps all of Playwright’s', async () => {
    const marker = '--gleaner-test-egress-switches'; // tells this browser from the other tests' ones
    const pool = new BrowserPool({
      executablePath: CHROMIUM,
      maxBrowsers: 1,
      extraArgs: ['--disable-features=GleanerTestFeature', marker],
    });
    pools.push(pool);
    const lease = await pool.acquire();
    try {
      const commandLines = mine().map((b) => readFileSync(`/proc/${b.pid}/cmdline`, 'utf8').split('\0'));
      const args = commandLines.find((line) => line.includes(marker))!;
      expect(args).toContain('--webrtc-ip-handling-policy=disable_non_proxied_udp');
      // Chromium keeps the last --disable-features only: it must hold every feature an earlier one (Playwright's) names.
      const lists = args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
      expect(lists.length).toBeGreaterThan(1); // Playwright's and the pool's
      const effective = lists[lists.length - 1];
      expect(effective).toEqual(expect.arrayContaining([...lists.slice(0, -1).flat(), 'IsolateSandboxedIframes', 'GleanerTestFeature']));
    } finally {
      await lease.release();
      await pool.close();
    }
  });

  describe('a browser whose owner was killed with -9', () => {
    let holder: ChildProcess | undefined;
    let frozen: ProcInfo[] = [];
    afterAll(() => {
      holder?.kill('SIGKILL');
      for (const p of stillRunning(frozen)) process.kill(p.pid, 'SIGKILL');
    });

    it('is reaped by the next process, and a live owner’s browser is left alone', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'fixtures', 'browser-holder.ts')], {
        cwd: ROOT,
        env: { ...process.env, GLEANER_CHROMIUM_PATH: CHROMIUM },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      holder = child;
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      await waitFor(() => out.includes('ready') || child.exitCode !== null, 'the holder to open its browser', 90_000);
      expect(out).toContain('ready');

      // Frozen, the browser cannot notice that its owner died (a healthy one exits by itself).
      const trees = browserTrees(child.pid!);
      expect(trees).toHaveLength(1);
      frozen = trees[0].processes;
      for (const p of frozen) process.kill(p.pid, 'SIGSTOP');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect(stillRunning(frozen).length).toBe(frozen.length);

      // A live owner's browser (this process's) must survive the reaping.
      const pool = new BrowserPool({ executablePath: CHROMIUM });
      pools.push(pool);
      const lease = await pool.acquire();

      const reaped = reapOrphanedBrowsers();
      expect(reaped.map((r) => r.pid)).toContain(trees[0].root);
      await waitFor(() => stillRunning(frozen).length === 0, 'the orphaned tree to be gone');
      expect(lease.browser.isConnected()).toBe(true);
      const context = await lease.browser.newContext();
      await context.close();
      await lease.release();
    });
  });

  describe('pages that hang, crash their tab or never go idle (the browser soak site)', () => {
    let site: JsSite;
    let fetcher: DynamicFetcher;
    beforeAll(async () => {
      site = await startJsSite();
      fetcher = new DynamicFetcher({
        guard: new AddressGuard({ resolver: testResolver, allowHosts: ['js.test'] }),
        pool: { executablePath: CHROMIUM, maxBrowsers: 1, pageHeapMb: 64 },
        timeoutMs: 6_000,
        settleMs: 1_000,
      });
    });
    afterAll(async () => {
      await fetcher?.close();
      await site?.close();
    });

    it('a script that never yields ends at the deadline as a timeout', async () => {
      const error = await failure(fetcher.fetch(site.url('/p/13')));
      expect(error).toMatchObject({ category: 'timeout' });
      expect(error.message).toMatch(/kept the tab busy past the deadline/);
    });

    it('a document that never finishes ends at the deadline as a timeout', async () => {
      const error = await failure(fetcher.fetch(site.url('/p/7')));
      expect([error.category, error.message]).toEqual(['timeout', expect.any(String)]);
      // The site hears the tab's connection close a moment after the fetch has given up: wait for that event.
      await waitFor(() => site.hangs().length > 0 && site.hangs().every((h) => h.closedAt !== null), 'the hung request to close');
    });

    it('a page that exhausts its tab heap fails, saying so, and is not retried', async () => {
      const error = await failure(fetcher.fetch(site.url('/p/3')));
      expect(error).toMatchObject({ category: 'fetch_error', retryable: false });
      expect(error.message).toMatch(/crashed its browser tab/);
    });

    it('a page whose requests never stop is taken after the settle cap, and its tab ends with it', async () => {
      const page = await fetcher.fetch(site.url('/p/17'));
      expect(page.html).toContain('Product 17');
      expect(fetcher.stats()).toMatchObject({ openPages: 0, openContexts: 0, browsers: 1 });
    });
  });
});
