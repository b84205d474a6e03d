import { monitorRunIdOf, runSchemaOf } from './monitor-run-input';

describe("a monitor's reading of its run's job input", () => {
  it('finds the run id and the schema of a run, and nothing in any other input', () => {
    const input = { url: 'https://shop.test/', schema: { type: 'object' }, monitor_id: 'mon_1', monitor_run_id: 'run_1' };
    expect(monitorRunIdOf(input)).toBe('run_1');
    expect(runSchemaOf(input)).toEqual({ type: 'object' });
    for (const other of [null, undefined, 'x', [], { monitor_run_id: 7, schema: ['not', 'a', 'schema'] }]) {
      expect(monitorRunIdOf(other)).toBeNull();
      expect(runSchemaOf(other)).toEqual({});
    }
  });
});
