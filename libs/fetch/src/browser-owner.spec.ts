import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markedBrowsers, OWNER_SWITCH, ownerMark, reapOrphanedBrowsers } from './browser-owner';

describe('browser owner marks and the reaper (a fake /proc)', () => {
  let proc: string;
  const processEntry = (pid: number, args: string[], startTime = 1000) => {
    mkdirSync(join(proc, String(pid)), { recursive: true });
    writeFileSync(join(proc, String(pid), 'cmdline'), args.join('\0') + '\0');
    // Field 22 (start time) is the 20th after the parenthesised command, which may hold spaces and parentheses.
    const after = ['S', '1', ...Array.from({ length: 17 }, () => '0'), String(startTime), '0'];
    writeFileSync(join(proc, String(pid), 'stat'), `${pid} (a (b) c) ${after.join(' ')}\n`);
  };

  beforeEach(() => {
    proc = mkdtempSync(join(tmpdir(), 'gleaner-proc-'));
  });
  afterEach(() => rmSync(proc, { recursive: true, force: true }));

  it('kills the marked browsers whose owner is gone or whose pid now belongs to another process, and only those', () => {
    processEntry(300, ['node', 'crawler.js'], 777); // a live owner
    processEntry(400, ['node', 'other.js'], 5); // pid 400 reused by a younger process
    processEntry(10, ['/usr/lib/chromium/chromium', '--headless', `${OWNER_SWITCH}=200.555`]); // owner 200 gone
    processEntry(11, ['/usr/lib/chromium/chromium', `${OWNER_SWITCH}=300.777`]); // owner alive
    processEntry(12, ['/usr/lib/chromium/chromium', `${OWNER_SWITCH}=400.1`]); // owner's pid reused
    processEntry(13, ['/usr/lib/chromium/chromium', '--type=renderer']); // a child: never marked
    writeFileSync(join(proc, 'uptime'), '1 1\n'); // not a process

    expect(markedBrowsers(proc).sort((a, b) => a.pid - b.pid)).toEqual([
      { pid: 10, owner: '200.555' },
      { pid: 11, owner: '300.777' },
      { pid: 12, owner: '400.1' },
    ]);
    const killed: number[] = [];
    const reaped = reapOrphanedBrowsers({ procRoot: proc, kill: (pid) => killed.push(pid) });
    expect(killed.sort()).toEqual([10, 12]);
    expect(reaped.map((r) => r.owner).sort()).toEqual(['200.555', '400.1']);
  });

  it('marks this process with its pid and start time', () => {
    expect(ownerMark()).toMatch(new RegExp(`^${process.pid}\\.\\d+$`));
  });
});
