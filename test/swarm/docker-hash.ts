/**
 * The hash of docker/ that bench-results/swarm.json records: the swarm test (npm run test:swarm) must run
 * again before a change to these files is committed. docker-hash.spec.ts covers the hash; the spec that
 * compares the recorded hash with the tree's joins `npm test` with the first full recorded run.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/** sha256 over every file of `<root>/docker`, by path (sorted), of its path and contents. */
export function dockerDirHash(root: string): string {
  const hash = createHash('sha256');
  const dir = join(root, 'docker');
  for (const file of files(dir).sort()) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}
