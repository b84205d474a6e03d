import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { AppError, Errors, type FieldError } from '@app/core';
import { describeDto, type DtoClass } from './dto-metadata';
import { suggestField } from './field-suggestions';
import { STRING_MAP_RULE } from './map-rules';
import { UrlListBody } from './url-list-body';

const LOCATION: Record<string, string> = { body: 'body', query: 'query', param: 'path', custom: 'body' };

/** Fields whose values are never echoed back in `errors[].value` (a base_url may hold credentials). */
const SECRET_FIELD = /secret|api_key|apikey|password|^username$|token|^key$|authorization|^headers$|^cookies$|^base_url$/i;

/**
 * The detail of a 422 whose errors break a rule the OpenAPI document states (type, length, enum,
 * pattern, format, unknown field, null): a request the document calls valid never gets it. Checks the
 * document cannot state (a regex that must compile, a saved schema that must exist, ...) keep the
 * generic detail.
 */
export const SCHEMA_MISMATCH_DETAIL = 'The request does not match the API schema; errors[] points at each difference.';

/** Rules openapi-constraints.ts writes into the document (everything else is a semantic check). */
export const DOCUMENTED_RULES: ReadonlySet<string> = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isIn',
  'isEnum',
  'isLength',
  'minLength',
  'maxLength',
  'min',
  'max',
  'arrayMaxSize',
  'arrayMinSize',
  'isArray',
  'isObject',
  'matches',
  'isRfc3339',
  'isDateOrDateTime',
  'isHttpUrl',
  // llm_config.base_url (libs/llm base-url.ts): the URL pattern without a fragment.
  'isModelBaseUrl',
  STRING_MAP_RULE,
  'isDefined',
  'whitelistValidation',
  'nestedValidation',
  'unknownValue',
  'notNull',
]);

/** Rules about a value's JSON type: when one is broken, the others (ranges, lengths) say nothing true. */
const TYPE_RULES: ReadonlySet<string> = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);

/**
 * One message per field: "is required" when it is missing; the type error alone when the type is wrong
 * (`max_pages: "20"` is "must be an integer number", not also "must not be less than 1"); else every
 * broken rule.
 */
function messagesOf(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  if (error.value === undefined && !constraints.whitelistValidation) return ['is required'];
  const type = Object.keys(constraints).filter((name) => TYPE_RULES.has(name));
  return type.length > 0 ? type.map((name) => constraints[name]) : Object.values(constraints);
}

/** Flattens class-validator's tree into `errors[]` with `location` paths like `body.scopes[0]`. */
export function flattenValidationErrors(errors: ValidationError[], prefix: string): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = /^\d+$/.test(error.property) ? `${prefix}[${error.property}]` : `${prefix}.${error.property}`;
    for (const message of messagesOf(error)) {
      const cleaned = message.replace(new RegExp(`^(each value in )?${escapeRegExp(error.property)} `), '$1');
      const value =
        error.constraints?.whitelistValidation || SECRET_FIELD.test(error.property) || message === 'is required' ? undefined : error.value;
      out.push({
        location: path,
        message: error.constraints?.whitelistValidation ? 'unknown field' : cleaned,
        ...(value === undefined ? {} : { value }),
      });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, path));
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function brokenRules(errors: ValidationError[], into: Set<string> = new Set()): Set<string> {
  for (const error of errors) {
    for (const name of Object.keys(error.constraints ?? {})) into.add(name);
    if (error.children?.length) brokenRules(error.children, into);
  }
  return into;
}

/**
 * What class-transformer would hide from class-validator, checked on the raw value: undeclared keys
 * (`__proto__`, `constructor`, ... would be dropped silently, change an object's prototype, or pass
 * as inherited members), and `null` for optional properties that are not declared nullable (absent is the way to
 * leave them out; null would slip past IsOptional into the code).
 */
function checkRaw(raw: unknown, cls: DtoClass, path: string, out: FieldError[], depth = 0, root = { cls, path }): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || depth > 16) return;
  const properties = describeDto(cls);
  for (const [key, value] of Object.entries(raw)) {
    const where = `${path}.${key}`;
    const property = properties.get(key);
    if (!property) {
      // Every undeclared key, also those class-transformer would drop or treat specially (`__proto__`,
      // `constructor`, ...), which forbidNonWhitelisted then never sees. A near or misplaced name is named.
      const suggestion = suggestField(key, cls, root.cls, root.path);
      out.push({ location: where, message: suggestion ? `unknown field: did you mean ${suggestion}?` : 'unknown field' });
      continue;
    }
    if (property.freeForm) continue;
    if (value === null && property.optional && !property.nullable) {
      out.push({ location: where, message: 'must not be null (leave the field out instead)' });
      continue;
    }
    if (property.nested) {
      // class-validator's ValidateNested walks into arrays of arrays and passes them ([[], []] for a
      // list of objects was accepted): every nested value must be an object.
      const list = property.rules.some((r) => r.name === 'isArray') && Array.isArray(value);
      const items: Array<[unknown, string]> = list ? (value as unknown[]).map((item, i) => [item, `${where}[${i}]`]) : [[value, where]];
      for (const [item, at] of items) {
        if (Array.isArray(item) || (item !== null && item !== undefined && typeof item !== 'object')) {
          out.push({ location: at, message: 'must be an object' });
        } else checkRaw(item, property.nested, at, out, depth + 1, root);
      }
    }
  }
}

/**
 * Free-form properties (only @Allow) keep the parsed JSON value exactly, not class-transformer's copy;
 * string maps (headers, cookies) too, as own keys only (class-transformer drops `__proto__` silently,
 * and a key must be refused, not lost).
 */
function restoreFreeForm(instance: object, raw: unknown, cls: DtoClass, depth = 0): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || depth > 16) return;
  const target = instance as Record<string, unknown>;
  const source = raw as Record<string, unknown>;
  for (const property of describeDto(cls).values()) {
    if (!Object.prototype.hasOwnProperty.call(source, property.name)) continue;
    const value = source[property.name];
    if (property.freeForm) target[property.name] = value;
    else if (
      property.rules.some((r) => r.name === STRING_MAP_RULE) &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      target[property.name] = Object.fromEntries(Object.entries(value));
    } else if (property.nested && target[property.name] && typeof target[property.name] === 'object') {
      const nested = target[property.name];
      if (Array.isArray(value) && Array.isArray(nested)) {
        value.forEach((item, i) => nested[i] && restoreFreeForm(nested[i] as object, item, property.nested!, depth + 1));
      } else if (!Array.isArray(nested)) restoreFreeForm(nested as object, value, property.nested, depth + 1);
    }
  }
}

/** Strict DTO validation: unknown fields are rejected, types are not silently coerced in bodies. */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly acceptsEmpty = new WeakMap<object, boolean>();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype;
    if (!metatype || [String, Number, Boolean, Array, Object].includes(metatype as never)) return value;
    // A URL list read from a text/plain or ndjson body (url-list-body.ts): its handler checks each URL.
    if (value instanceof UrlListBody) return value;
    const location = LOCATION[metadata.type] ?? 'body';
    if (metadata.type === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw Errors.validation([{ location: 'body', message: 'must be a JSON object' }], SCHEMA_MISMATCH_DETAIL);
    }
    const raw = value ?? {};
    // Most reads send no query: a DTO that accepts an empty object is checked once, not on every request.
    const empty = metadata.type === 'query' && isEmptyObject(raw);
    if (empty && this.acceptsEmpty.get(metatype)) return plainToInstance(metatype as new () => object, raw);
    const early: FieldError[] = [];
    checkRaw(raw, metatype as DtoClass, location, early);
    const instance = plainToInstance(metatype as new () => object, raw);
    restoreFreeForm(instance, raw, metatype as DtoClass);
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: true },
    });
    if (empty) this.acceptsEmpty.set(metatype, early.length === 0 && errors.length === 0);
    if (early.length === 0 && errors.length === 0) return instance;
    const flat = flattenValidationErrors(errors, location);
    const early_locations = new Set(early.map((e) => e.location));
    const all = [...early, ...flat.filter((e) => !early_locations.has(e.location))];
    const documented = early.length > 0 || [...brokenRules(errors)].some((rule) => DOCUMENTED_RULES.has(rule));
    throw Errors.validation(all, documented ? SCHEMA_MISMATCH_DETAIL : undefined);
  }
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _key in value) return false;
  return true;
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
