import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { re2Engine } from './safe-pattern';
import type { JsonSchemaObject } from './types';

export interface ValidationIssue {
  /** JSONPath-like location in the data: `$`, `$.offers[0].price`. */
  path: string;
  message: string;
}

export type SchemaValidator = (data: unknown) => { valid: boolean; errors: ValidationIssue[] };

const CACHE_SIZE = 256;
const cache = new Map<string, SchemaValidator>();
/**
 * Schema objects already seen, with the content key they were compiled under. A schema object is not
 * changed once handed to a validator (the callers build it per job); an entry evicted from the LRU is
 * looked up by content again.
 */
const byObject = new WeakMap<object, { key: string; validator: SchemaValidator }>();

let ajv: Ajv2020 | undefined;

function instance(): Ajv2020 {
  if (!ajv) {
    // Union types are how nullable fields are written (["string", "null"]); re2 makes patterns ReDoS-safe.
    ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, code: { regExp: re2Engine } });
    addFormats(ajv, ['date', 'date-time', 'uri', 'email']);
  }
  return ajv;
}

/** Compile a normalised schema into a validator for model replies; cached (LRU) per schema content. */
export function compileValidator(schema: JsonSchemaObject): SchemaValidator {
  // A crawl hands every page the same schema object: found by identity, without serialising it per page.
  const same = byObject.get(schema);
  if (same && cache.get(same.key) === same.validator) return same.validator;
  return byContent(schema);
}

/** The validator of a schema's content (the LRU); remembers the object it was asked for. */
function byContent(schema: JsonSchemaObject): SchemaValidator {
  const key = JSON.stringify(schema);
  const found = lookup(key);
  if (found) {
    byObject.set(schema, { key, validator: found });
    return found;
  }
  const validator = compile(schema);
  cache.set(key, validator);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  byObject.set(schema, { key, validator });
  return validator;
}

function lookup(key: string): SchemaValidator | undefined {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
  }
  return hit;
}

function compile(schema: JsonSchemaObject): SchemaValidator {
  const ajvInstance = instance();
  const validate: ValidateFunction = ajvInstance.compile(schema);
  ajvInstance.removeSchema(schema); // our LRU owns the lifetime; ajv's own cache would grow forever
  const validator: SchemaValidator = (data) => {
    const valid = validate(data);
    return { valid, errors: valid ? [] : (validate.errors ?? []).map(toIssue) };
  };
  return validator;
}

function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty !== undefined) {
    return { path: pointerToPath(`${error.instancePath}/${escape(params.missingProperty)}`), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    return { path: pointerToPath(`${error.instancePath}/${escape(params.additionalProperty)}`), message: 'is not allowed' };
  }
  return { path: pointerToPath(error.instancePath), message: error.message ?? error.keyword };
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => {
      if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
      return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment) ? `${path}.${segment}` : `${path}[${JSON.stringify(segment)}]`;
    }, '$');
}
