import { ExclusiveGate } from './exclusive-gate';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ExclusiveGate', () => {
  it('runs shared work together and exclusive work alone, exclusive first once it waits', async () => {
    const gate = new ExclusiveGate();
    const log: string[] = [];
    const a = deferred();
    const b = deferred();
    const sharedA = gate.run(false, async () => {
      log.push('a+');
      await a.promise;
      log.push('a-');
    });
    const sharedB = gate.run(false, async () => {
      log.push('b+');
      await b.promise;
      log.push('b-');
    });
    await new Promise((r) => setImmediate(r));
    const exclusive = gate.run(true, async () => {
      log.push('x');
    });
    const late = gate.run(false, async () => {
      log.push('late');
    });
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['a+', 'b+']);
    a.resolve();
    await sharedA;
    expect(log).toEqual(['a+', 'b+', 'a-']);
    b.resolve();
    await Promise.all([sharedB, exclusive, late]);
    expect(log).toEqual(['a+', 'b+', 'a-', 'b-', 'x', 'late']);
  });

  it('releases the gate when the work throws', async () => {
    const gate = new ExclusiveGate();
    await expect(gate.run(true, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(false, async () => 'ok')).resolves.toBe('ok');
  });
});
