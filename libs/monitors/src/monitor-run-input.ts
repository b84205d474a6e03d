/*
 * What a monitor reads of its run's job. The crawl lib writes the input (a crawl's or batch's, with the monitor's
 * run id and the run's schema; this lib cannot name its type), and a lifecycle event or a read of a job hands it
 * over as any job's, input unknown: so it is read by checking, never by a cast.
 */

/** The monitor run a job is (its input's `monitor_run_id`), or null for any other job. */
export function monitorRunIdOf(input: unknown): string | null {
  return typeof input === 'object' && input !== null && 'monitor_run_id' in input && typeof input.monitor_run_id === 'string'
    ? input.monitor_run_id
    : null;
}

/** The schema a run extracted with (its input's `schema`, a JSON Schema object as intake normalised it), or an empty one. */
export function runSchemaOf(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && 'schema' in input && isSchemaObject(input.schema) ? input.schema : {};
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
