/**
 * The hash of docker/ that bench-results/swarm.json records: the swarm test (npm run test:swarm) must run
 * again before a change to these files is committed. docker-hash.spec.ts covers the hash and the check;
 * recorded-run.spec.ts, in `npm test`, holds the committed record against this tree.
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

/**
 * What is wrong with a recorded run (the parsed bench-results/swarm.json) for a tree whose docker/ hashes
 * to `hash`: empty when the record was made on exactly these docker/ files, committed when it ran, and
 * holds at least one scenario, each with its verdict. Which scenarios ran and passed is the record's to say
 * (`summary`; a run stopped early records the scenarios that finished): this checks where it ran.
 */
export function recordedRunProblems(record: unknown, hash: string): string[] {
  if (typeof record !== 'object' || record === null) return ['bench-results/swarm.json holds no record'];
  const r = record as Record<string, unknown>;
  const problems: string[] = [];
  const rerun = 'run `npm run test:swarm` (README "Cluster mode") and commit its bench-results/swarm.json';
  if (r.docker_dir_sha256 !== hash) {
    problems.push(
      `docker/ changed since the recorded run (commit ${String(r.commit).slice(0, 12)}: docker/ hashed ${String(r.docker_dir_sha256)}, now ${hash}): ${rerun}`,
    );
  }
  if (r.docker_dir_uncommitted_changes !== false) {
    problems.push(
      `the recorded run did not run on committed docker/ files (docker_dir_uncommitted_changes: ${String(r.docker_dir_uncommitted_changes)})`,
    );
  }
  const ran = Array.isArray(r.scenarios) ? (r.scenarios as Array<{ scenario?: unknown; verdict?: unknown }>) : [];
  if (ran.length === 0) problems.push(`the recorded run has no scenario (${rerun})`);
  for (const s of ran) {
    if (s.verdict !== 'pass' && s.verdict !== 'fail') problems.push(`scenario ${String(s.scenario)} has no verdict`);
  }
  return problems;
}
