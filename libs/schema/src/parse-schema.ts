import type { AppError } from '@app/core';
import { ParseContext } from './context';
import { detectSchemaForm } from './detect-form';
import { fromFieldList } from './field-list';
import { AbortParse, describeType, Issues } from './issues';
import { fromJsonSchema } from './json-schema-subset';
import { checkJsonValue } from './json-value';
import { fromShorthand } from './shorthand';
import { parseSourceText } from './source-text';
import type { ParsedSchema } from './types';

/**
 * Parse and normalise an extraction schema given as a JSON value or as a JSON/YAML string, in any
 * of the three forms. Throws an AppError `validation-error` (422) whose `errors[].location` point
 * into the schema, e.g. `body.schema.fields[2].type`.
 */
export function parseSchema(input: unknown, location = 'body.schema'): ParsedSchema {
  const issues = new Issues();
  const ctx = new ParseContext(issues);
  try {
    if (input === undefined || input === null) issues.fatal(location, 'schema is required');
    const value = typeof input === 'string' ? parseSourceText(input, location, issues) : input;
    if (!issues.ok) throw new AbortParse();
    checkJsonValue(value, location, issues);
    if (!issues.ok) throw new AbortParse();
    const form = detectSchemaForm(value);
    if (!form) return issues.fatal(location, `schema must be an object (shorthand, field list or JSON Schema); got ${describeType(value)}`);
    const root = value as Record<string, unknown>;
    if (form === 'shorthand' && Object.keys(root).length === 0) issues.fatal(location, 'schema has no fields');
    const convert = form === 'shorthand' ? fromShorthand : form === 'fields' ? fromFieldList : fromJsonSchema;
    const jsonSchema = convert(root, location, ctx);
    if (!jsonSchema && issues.ok) issues.add(location, 'schema is invalid'); // defensive: converters always explain
    if (!issues.ok || !jsonSchema) throw new AbortParse();
    return { form, jsonSchema, fieldCount: ctx.fieldCount, warnings: ctx.warnings };
  } catch (error) {
    if (error instanceof AbortParse) throw issues.toError();
    throw error;
  }
}

/** Type guard for callers that catch: is this the 422 thrown by parseSchema? */
export function isSchemaError(error: unknown): error is AppError {
  return error instanceof Error && (error as AppError).slug === 'validation-error';
}
