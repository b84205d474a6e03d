/**
 * The hash of docker/ that `npm run test:swarm` records in bench-results/swarm.json (test/swarm/docker-hash.ts):
 * what it covers. The spec that compares the recorded hash with this tree's joins the suite with the first
 * full recorded run (README "Cluster mode").
 */
import { mkdtempSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerDirHash } from './docker-hash';

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
