import { hasOwn, isPlainObject } from './issues';
import type { SchemaForm } from './types';

/**
 * Which of the three forms a (parsed) schema value is written in, or undefined for a non-object.
 * - JSON Schema: has `$schema`, or a root `type` of "object" (or a type list containing it).
 * - field list: has a `fields` list.
 * - shorthand: any other object.
 * So a shorthand schema cannot use a top-level field called `$schema`, a `type` field of type
 * object, or a `fields` field that is a list; write such schemas as a field list.
 */
export function detectSchemaForm(value: unknown): SchemaForm | undefined {
  if (!isPlainObject(value)) return undefined;
  const type = value.type;
  if (hasOwn(value, '$schema') || type === 'object' || (Array.isArray(type) && type.includes('object'))) return 'json_schema';
  if (Array.isArray(value.fields)) return 'fields';
  return 'shorthand';
}
