import { ValidateBy, type ValidationArguments, type ValidationOptions } from 'class-validator';

/**
 * An object used as a map of strings (request headers, cookies): what its keys and values may be.
 * apps/api/src/openapi-constraints.ts writes it into the document as `propertyNames`,
 * `additionalProperties` and `maxProperties`, so the document states it exactly.
 */
export interface StringMapRule {
  keyPattern: RegExp;
  valuePattern: RegExp;
  maxEntries: number;
  maxValueLength: number;
  /** "header name", "cookie name": used in messages. */
  keyLabel: string;
}

export const STRING_MAP_RULE = 'isStringMap';

/** Names that would turn into an object's prototype or constructor if used as plain keys. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first broken part of a map (never the value itself: values may be secrets). */
export function stringMapProblem(value: unknown, rule: StringMapRule): string | null {
  if (!isPlainMap(value)) return 'must be an object';
  const entries = Object.entries(value);
  if (entries.length > rule.maxEntries) return `must have at most ${rule.maxEntries} entries`;
  for (const [key, item] of entries) {
    if (!rule.keyPattern.test(key)) return `"${key.slice(0, 100)}" is not a valid ${rule.keyLabel}`;
    if (typeof item !== 'string') return `the value of ${key} must be a string`;
    if (item.length > rule.maxValueLength) return `the value of ${key} must be at most ${rule.maxValueLength} characters`;
    if (!rule.valuePattern.test(item)) return `the value of ${key} has characters it may not contain (line breaks, control characters)`;
  }
  return null;
}

export function IsStringMap(rule: StringMapRule, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: STRING_MAP_RULE,
      constraints: [rule],
      validator: {
        validate: (value: unknown) => stringMapProblem(value, rule) === null,
        defaultMessage: (args?: ValidationArguments) => stringMapProblem(args?.value, rule) ?? 'is invalid',
      },
    },
    options,
  );
}

/**
 * Keys the document cannot rule out by pattern: reserved object keys, and whatever `refuse` names
 * (forbidden headers). A semantic check: its 422 carries the generic detail.
 */
export function HasUsableKeys(refuse: (key: string) => string | null = () => null, options?: ValidationOptions): PropertyDecorator {
  const problem = (value: unknown): string | null => {
    if (!isPlainMap(value)) return null;
    for (const key of Object.keys(value)) {
      if (RESERVED_KEYS.has(key)) return `"${key}" may not be used as a name`;
      const reason = refuse(key);
      if (reason) return `must not set ${key}: ${reason}`;
    }
    return null;
  };
  return ValidateBy(
    {
      name: 'hasUsableKeys',
      validator: {
        validate: (value: unknown) => problem(value) === null,
        defaultMessage: (args?: ValidationArguments) => problem(args?.value) ?? 'is invalid',
      },
    },
    options,
  );
}
