import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AppError } from '@app/core';
import { CgroupMemory, MemoryAdmission } from './memory-admission';

const MB = 1_048_576;

describe('CgroupMemory and MemoryAdmission (fake cgroup files)', () => {
  let root: string;
  const write = (path: string, text: string) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  const memory = () => new CgroupMemory({ root: join(root, 'sys'), selfCgroup: join(root, 'self-cgroup') });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gleaner-cgroup-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('cgroup v2: the smallest memory.max on the path binds, the working set leaves inactive file cache out', () => {
    write('self-cgroup', '0::/kubepods/pod1/crawler\n');
    write('sys/kubepods/pod1/crawler/memory.max', 'max\n');
    write('sys/kubepods/pod1/crawler/memory.current', String(700 * MB));
    write('sys/kubepods/pod1/crawler/memory.stat', `anon ${500 * MB}\ninactive_file ${200 * MB}\nactive_file 0\n`);
    write('sys/kubepods/pod1/memory.max', String(1024 * MB));
    write('sys/kubepods/pod1/memory.current', String(900 * MB));
    write('sys/kubepods/memory.max', String(4096 * MB));
    write('sys/kubepods/memory.current', String(900 * MB));
    expect(memory().read()).toEqual({ limitBytes: 1024 * MB, workingSetBytes: 500 * MB });
  });

  it('cgroup v2 inside a container (its own cgroup at the root of the mount)', () => {
    write('self-cgroup', '0::/\n');
    write('sys/memory.max', String(2048 * MB));
    write('sys/memory.current', String(300 * MB));
    write('sys/memory.stat', `inactive_file ${100 * MB}\n`);
    expect(memory().read()).toEqual({ limitBytes: 2048 * MB, workingSetBytes: 200 * MB });
  });

  it('falls back to cgroup v1 (memory controller line), and to its root when the path is not visible here', () => {
    write('self-cgroup', '9:name=systemd:/\n4:memory:/docker/abc\n0::/\n');
    write('sys/memory/docker/abc/memory.limit_in_bytes', String(512 * MB));
    write('sys/memory/docker/abc/memory.usage_in_bytes', String(400 * MB));
    write('sys/memory/docker/abc/memory.stat', `cache ${300 * MB}\ntotal_inactive_file ${50 * MB}\n`);
    write('sys/memory/memory.limit_in_bytes', '9223372036854771712');
    write('sys/memory/memory.usage_in_bytes', String(9000 * MB));
    expect(memory().read()).toEqual({ limitBytes: 512 * MB, workingSetBytes: 350 * MB });

    rmSync(join(root, 'sys/memory/docker'), { recursive: true });
    // Only the root is visible, and it has no limit (v1 writes "unlimited" as 2^63 rounded to a page).
    expect(memory().read()).toEqual({ limitBytes: null, workingSetBytes: 9000 * MB });
  });

  it('no cgroup at all: no limit, and admission lets every page in', async () => {
    write('self-cgroup', '0::/\n');
    expect(memory().read()).toEqual({ limitBytes: null, workingSetBytes: null });
    const admission = new MemoryAdmission({ share: 0.5, memory: memory() });
    await expect(admission.admit()).resolves.toBeUndefined();
    expect(admission.stats()).toMatchObject({ limitBytes: null, waited: 0 });
  });

  describe('admission', () => {
    beforeEach(() => {
      write('self-cgroup', '0::/\n');
      write('sys/memory.max', String(1000 * MB));
      write('sys/memory.stat', 'inactive_file 0\n');
    });

    it('admits below the share at once', async () => {
      write('sys/memory.current', String(799 * MB));
      const admission = new MemoryAdmission({ share: 0.8, memory: memory() });
      await admission.admit();
      expect(admission.stats()).toEqual({ limitBytes: 1000 * MB, waiting: 0, waited: 0, deferred: 0 });
    });

    it('past the share a page waits, and opens once memory came back', async () => {
      write('sys/memory.current', String(850 * MB));
      const admission = new MemoryAdmission({ share: 0.8, memory: memory(), pollMs: 5 });
      let admitted = false;
      const waiting = admission.admit().then(() => (admitted = true));
      expect(admission.stats().waiting).toBe(1);
      // Still above: it keeps waiting through several looks.
      await new Promise((r) => setTimeout(r, 30));
      expect(admitted).toBe(false);
      write('sys/memory.current', String(600 * MB));
      await waiting;
      expect(admission.stats()).toEqual({ limitBytes: 1000 * MB, waiting: 0, waited: 1, deferred: 0 });
    });

    it('a page that waited too long fails retryable (tried again later), and an aborted wait ends at once', async () => {
      write('sys/memory.current', String(950 * MB));
      const admission = new MemoryAdmission({ share: 0.8, memory: memory(), pollMs: 5, maxWaitMs: 30 });
      const error = (await admission.admit().catch((e: unknown) => e)) as AppError;
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ category: 'fetch_error', retryable: true });
      expect(error.message).toMatch(/above 80 % of the 1000 MB memory limit/);
      expect(admission.stats()).toMatchObject({ waiting: 0, waited: 1, deferred: 1 });

      const controller = new AbortController();
      const slow = new MemoryAdmission({ share: 0.8, memory: memory(), pollMs: 5, maxWaitMs: 600_000 });
      const aborted = slow.admit(controller.signal).catch((e: unknown) => e);
      controller.abort();
      expect(await aborted).toMatchObject({ category: 'timeout' });
    });

    it('share 1 turns admission off', async () => {
      write('sys/memory.current', String(2000 * MB));
      await expect(new MemoryAdmission({ share: 1, memory: memory() }).admit()).resolves.toBeUndefined();
      expect(() => new MemoryAdmission({ share: 0 })).toThrow('share');
    });
  });
});
