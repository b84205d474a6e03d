/**
 * The committed result of `npm run test:swarm` (bench-results/swarm.json) was made on exactly this tree's
 * docker/ files: a change to docker/ fails `npm test` until the swarm test has run again and its record is
 * committed (issue 36; README "Cluster mode"). Which scenarios ran and passed is the record's `summary`.
 * Reads only the repository: the record and docker/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerDirHash, recordedRunProblems } from './docker-hash';

const ROOT = join(__dirname, '..', '..');

describe('the recorded swarm run (bench-results/swarm.json)', () => {
  it('was made on the committed docker/ files of this tree, each scenario with its verdict', () => {
    const record: unknown = JSON.parse(readFileSync(join(ROOT, 'bench-results', 'swarm.json'), 'utf8'));
    expect(recordedRunProblems(record, dockerDirHash(ROOT))).toEqual([]);
  });
});
