import { join } from 'node:path';
import { outputTail, ProcessStartError, ROOT, startProcess } from './processes';

const EXITS_AT_START = join(ROOT, 'test', 'fixtures', 'exit-at-start.js');

/** What startProcess throws for this start (it must throw). */
async function startFailure(args: string[]): Promise<ProcessStartError> {
  const error = await startProcess('quitter', EXITS_AT_START, args, {}, 'PORT').then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProcessStartError);
  return error as ProcessStartError;
}

/*
 * A child that dies before it answers /health fails its start at once: were the readiness wait (150 s)
 * run out instead, these tests would outlast jest's timeout (30 s) and the message would be the timeout's.
 */
describe('startProcess: a child that exits at start-up', () => {
  it('fails at once with its exit code and the tail of its output, the cause included', async () => {
    const error = await startFailure(['3']);
    expect(error.processName).toBe('quitter');
    expect(error.message).toContain('quitter exited before it answered /health (exit code 3)');
    expect(error.message).not.toContain('did not become healthy');
    expect(error.message).toContain('fatal: cannot start (exit-at-start, 3)');
    expect(error.message).toContain('start-up line 150');
    // Only the tail: the first lines are left out, and say how many.
    expect(error.message).not.toMatch(/start-up line 1\n/);
    expect(error.message).toContain('(91 earlier lines)');
  });

  it('names the signal that ended it', async () => {
    const error = await startFailure(['SIGKILL']);
    expect(error.message).toContain('quitter exited before it answered /health (signal SIGKILL)');
    expect(error.message).toContain('fatal: cannot start (exit-at-start, SIGKILL)');
  });
});

describe('outputTail', () => {
  it('keeps short output whole and the last lines of long output', () => {
    expect(outputTail('a\nb\n', 5)).toBe('a\nb');
    expect(outputTail('1\n2\n3\n4\n', 2)).toBe('… (2 earlier lines)\n3\n4');
  });
});
