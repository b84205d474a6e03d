import { SCHEMA_LIMITS } from './limits';

// C0, DEL and C1 controls: invisible in UIs and logs, and rejected by some providers.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Returns a message when `name` is not a usable field name, otherwise undefined. */
export function checkFieldName(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'field name must be a string';
  if (name.length === 0) return 'field name must not be empty';
  if (name.length > SCHEMA_LIMITS.maxNameLength) return `field name is longer than ${SCHEMA_LIMITS.maxNameLength} characters`;
  if (CONTROL.test(name)) return 'field name must not contain control characters';
  return undefined;
}
