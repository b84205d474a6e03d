/**
 * The hash of docker/ that `npm run test:swarm` records in bench-results/swarm.json (test/swarm/docker-hash.ts):
 * what it covers; and the check of a record against a tree that recorded-run.spec.ts applies to the
 * committed record (README "Cluster mode").
 */
import { mkdtempSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerDirHash, recordedRunProblems } from './docker-hash';

describe('dockerDirHash', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gleaner-docker-hash-'));
    mkdirSync(join(root, 'docker', 'conf'), { recursive: true });
    writeFileSync(join(root, 'docker', 'Dockerfile'), 'FROM base\n');
    writeFileSync(join(root, 'docker', 'conf', 'a.yml'), 'a: 1\n');
    writeFileSync(join(root, 'outside.txt'), 'not hashed\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('changes with a file of docker/ edited, added or renamed, and with nothing outside docker/', () => {
    const first = dockerDirHash(root);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(dockerDirHash(root)).toBe(first);
    writeFileSync(join(root, 'outside.txt'), 'changed\n');
    expect(dockerDirHash(root)).toBe(first);

    writeFileSync(join(root, 'docker', 'conf', 'a.yml'), 'a: 2\n');
    const edited = dockerDirHash(root);
    expect(edited).not.toBe(first);
    renameSync(join(root, 'docker', 'conf', 'a.yml'), join(root, 'docker', 'conf', 'b.yml'));
    const renamed = dockerDirHash(root);
    expect(renamed).not.toBe(edited);
    writeFileSync(join(root, 'docker', 'new.sh'), '');
    expect(dockerDirHash(root)).not.toBe(renamed);
  });

  it('tells apart contents moved from one file to the next (path and contents are delimited)', () => {
    writeFileSync(join(root, 'docker', 'Dockerfile'), 'FROM base\na: 1\n');
    writeFileSync(join(root, 'docker', 'conf', 'a.yml'), '');
    const moved = dockerDirHash(root);
    writeFileSync(join(root, 'docker', 'Dockerfile'), 'FROM base\n');
    writeFileSync(join(root, 'docker', 'conf', 'a.yml'), 'a: 1\n');
    expect(dockerDirHash(root)).not.toBe(moved);
  });
});

describe('recordedRunProblems', () => {
  const hash = 'a'.repeat(64);
  const full = () => ({
    commit: '0123456789abcdef0123456789abcdef01234567',
    docker_dir_sha256: hash,
    docker_dir_uncommitted_changes: false,
    scenarios: ['1 crawl', '2 scale', '3 kill-owner', '4 rolling-update'].map((scenario, i) => ({
      scenario,
      verdict: i === 3 ? 'fail' : 'pass',
    })),
  });

  it('accepts a run on the same docker/ files: every verdict is recorded (a fail too), as are the scenarios that ran', () => {
    expect(recordedRunProblems(full(), hash)).toEqual([]);
    expect(recordedRunProblems({ ...full(), scenarios: full().scenarios.slice(0, 1) }, hash)).toEqual([]);
  });

  it('names the recorded commit and both hashes when docker/ changed since the run', () => {
    const problems = recordedRunProblems(full(), 'b'.repeat(64));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('docker/ changed since the recorded run (commit 0123456789ab');
    expect(problems[0]).toContain(hash);
    expect(problems[0]).toContain('b'.repeat(64));
    expect(problems[0]).toContain('npm run test:swarm');
  });

  it('refuses a run on uncommitted docker/ files, a run without scenarios, a scenario without verdict, no record', () => {
    expect(recordedRunProblems({ ...full(), docker_dir_uncommitted_changes: true }, hash)).toEqual([
      'the recorded run did not run on committed docker/ files (docker_dir_uncommitted_changes: true)',
    ]);
    expect(recordedRunProblems({ ...full(), scenarios: [] }, hash)).toEqual([expect.stringContaining('the recorded run has no scenario')]);
    expect(recordedRunProblems({ docker_dir_sha256: hash, docker_dir_uncommitted_changes: false }, hash)).toEqual([
      expect.stringContaining('the recorded run has no scenario'),
    ]);
    const noVerdict = { ...full(), scenarios: full().scenarios.map((s, i) => (i === 0 ? { scenario: s.scenario } : s)) };
    expect(recordedRunProblems(noVerdict, hash)).toEqual(['scenario 1 crawl has no verdict']);
    expect(recordedRunProblems(null, hash)).toEqual(['bench-results/swarm.json holds no record']);
  });
});
