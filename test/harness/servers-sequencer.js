/**
 * jest's test sequencer with a shard split by duration. `npm test` runs the servers project as two jest
 * processes (test/harness/run-tests.sh, `--shard=1/2` and `--shard=2/2`), each with its own servers from
 * global setup; jest's own split hashes paths, which can put the four longest suites in one shard. Here each
 * suite goes, longest first, to the shard with the least time so far, by the seconds one CI run measured
 * (servers-durations.json, from a CI run's jest output, a suite under 5 s counted as 3; a suite not listed there counts as the median). Only the split changes: a suite
 * runs exactly once whatever the numbers say, and the order inside a shard is jest's.
 */
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..', '..');
const DURATIONS = JSON.parse(readFileSync(join(__dirname, 'servers-durations.json'), 'utf8'));

/** Splits paths (repository-relative) into `count` lists of nearly equal measured time. */
function splitByDuration(paths, count, durations = DURATIONS) {
  const known = Object.values(durations).sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 1;
  const weight = (path) => durations[path] ?? median;
  const shards = Array.from({ length: count }, () => ({ seconds: 0, paths: [] }));
  const ordered = [...paths].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
  for (const path of ordered) {
    const lightest = shards.reduce((min, shard) => (shard.seconds < min.seconds ? shard : min));
    lightest.paths.push(path);
    lightest.seconds += weight(path);
  }
  return shards;
}

class ServersSequencer extends Sequencer {
  shard(tests, { shardIndex, shardCount }) {
    const shards = splitByDuration(
      tests.map((test) => relative(ROOT, test.path)),
      shardCount,
    );
    const mine = new Set(shards[shardIndex - 1].paths);
    return tests.filter((test) => mine.has(relative(ROOT, test.path)));
  }
}

module.exports = ServersSequencer;
module.exports.splitByDuration = splitByDuration;
