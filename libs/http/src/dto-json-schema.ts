import { describeDto, type DtoClass, type PropertyDescription, type PropertyRule } from './dto-metadata';
import { HTTP_URL_NO_FRAGMENT_PATTERN, HTTP_URL_PATTERN } from './dto-rules';
import { STRING_MAP_RULE, type StringMapRule } from './map-rules';

/**
 * JSON Schema from the class-validator metadata the validation pipe runs on (describeDto): the one
 * mapping from validation rules to schema keywords. The OpenAPI post-processor (apps/api) writes it
 * into the document's components; the MCP tools (libs/mcp) give it as their input schemas. A rule
 * missing here is a rule neither states.
 */

/** JSON Schema is open-ended: keywords are read and written by name. */
export type JsonSchema = Record<string, any>;

/** Writes one rule as schema keywords. Rules without a keyword (a regex that must compile, a CSS selector, ...) are semantic checks. */
export function applyRule(schema: JsonSchema, rule: PropertyRule): void {
  const [a, b] = rule.constraints as [unknown, unknown];
  switch (rule.name) {
    case 'isString':
      schema.type = 'string';
      break;
    case 'isInt':
      schema.type = 'integer';
      break;
    case 'isNumber':
      schema.type = 'number';
      break;
    case 'isBoolean':
      schema.type = 'boolean';
      break;
    case 'isArray':
      schema.type = 'array';
      break;
    case 'isObject':
      schema.type = 'object';
      break;
    case 'isIn':
      schema.enum = [...(a as unknown[])];
      break;
    case 'isLength':
      if (typeof a === 'number' && a > 0) schema.minLength = a;
      else delete schema.minLength;
      if (typeof b === 'number') schema.maxLength = b;
      break;
    case 'minLength':
      schema.minLength = a;
      break;
    case 'maxLength':
      schema.maxLength = a;
      break;
    case 'min':
      schema.minimum = a;
      break;
    case 'max':
      schema.maximum = a;
      break;
    case 'arrayMaxSize':
      schema.maxItems = a;
      break;
    case 'arrayMinSize':
      schema.minItems = a;
      break;
    case 'matches':
      addPattern(schema, a instanceof RegExp ? a.source : String(a));
      break;
    case 'isRfc3339':
      schema.type = 'string';
      schema.format = 'date-time';
      break;
    case STRING_MAP_RULE: {
      const map = a as StringMapRule;
      schema.type = 'object';
      schema.maxProperties = map.maxEntries;
      schema.propertyNames = { pattern: map.keyPattern.source };
      schema.additionalProperties = { type: 'string', maxLength: map.maxValueLength, pattern: map.valuePattern.source };
      break;
    }
    case 'isDateOrDateTime':
      schema.type = 'string';
      schema.anyOf = [{ format: 'date' }, { format: 'date-time' }];
      break;
    case 'isHttpUrl':
      schema.type = 'string';
      addPattern(schema, HTTP_URL_PATTERN.source);
      break;
    case 'isModelBaseUrl':
      // llm_config.base_url (libs/llm base-url.ts checks exactly this): the URL pattern without a fragment.
      schema.type = 'string';
      schema.maxLength = 2048;
      addPattern(schema, HTTP_URL_NO_FRAGMENT_PATTERN.source);
      break;
    default:
      break;
  }
}

function addPattern(schema: JsonSchema, source: string): void {
  if (!schema.pattern) schema.pattern = source;
  else if (schema.pattern !== source) schema.allOf = [...((schema.allOf as JsonSchema[] | undefined) ?? []), { pattern: source }];
}

/** Keywords of the decorator-made schema that the validation rules replace. */
const DROP_ON_REWRITE = [
  'anyOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'format',
  'minItems',
  'maxItems',
  'maxProperties',
  'propertyNames',
  'additionalProperties',
];

/** How a nested DTO appears: a `$ref` into the OpenAPI components, or the DTO's schema inlined. */
export type NestedSchema = (cls: DtoClass) => JsonSchema;

/**
 * A property's schema: what the @ApiProperty decorators made (`original`: description, examples,
 * defaults), with every keyword the validation decides rewritten from its rules: types, integer vs
 * number, lengths, ranges, enums, patterns, formats, item limits and nullability.
 */
export function propertyJsonSchema(original: JsonSchema | undefined, property: PropertyDescription, nested: NestedSchema): JsonSchema {
  const base: JsonSchema = { ...(original ?? {}) };
  // Any JSON value (or, when @ApiProperty names a type, that one; the service checks it).
  if (property.freeForm) return base;
  const refSchema = base.$ref ? base : (base.allOf as JsonSchema[] | undefined)?.find((s) => s.$ref);
  if (property.nested) {
    const ref = nested(property.nested);
    const out: JsonSchema = { description: base.description };
    if (property.rules.some((r) => r.name === 'isArray')) {
      out.type = 'array';
      out.items = ref;
      for (const rule of property.rules.filter((r) => !r.each && r.name !== 'isArray')) applyRule(out, rule);
    } else if (property.optional && property.nullable) {
      // `null` is a value too (an update's way to remove the object): the object or null.
      out.anyOf = [ref, { type: 'null' }];
    } else if (ref.$ref) {
      out.allOf = [ref];
    } else {
      Object.assign(out, ref, base.description === undefined ? {} : { description: base.description });
    }
    if (out.description === undefined) delete out.description;
    return out;
  }
  if (refSchema) return base;
  for (const key of DROP_ON_REWRITE) delete base[key];
  delete base.items;
  delete base.allOf;
  const items: JsonSchema = {};
  for (const rule of property.rules) applyRule(rule.each ? items : base, rule);
  if (property.rules.some((r) => r.each) || base.type === 'array') {
    base.type = 'array';
    base.items = items;
  }
  if (original?.enum && !base.enum && base.type === 'string' && !property.rules.some((r) => r.name === 'isIn')) {
    // Documented set whose other values the service answers itself (e.g. 406 for an unknown format).
    base.enum = original.enum;
  }
  if (base.type === undefined && original?.type) base.type = original.type;
  if (property.optional && property.nullable && typeof base.type === 'string') base.type = [base.type, 'null'];
  if (base.example !== undefined && !exampleFits(base.example, base)) delete base.example;
  return base;
}

function exampleFits(example: unknown, schema: JsonSchema): boolean {
  if (typeof example === 'string') {
    if (schema.maxLength !== undefined && example.length > schema.maxLength) return false;
    if (schema.minLength !== undefined && example.length < schema.minLength) return false;
    if (schema.pattern && !new RegExp(schema.pattern as string).test(example)) return false;
  }
  return true;
}

/**
 * An object schema for a DTO class: its properties (from `originals`, the decorator-made property
 * schemas, rewritten by propertyJsonSchema), `required`, and `additionalProperties: false` (the pipe
 * refuses unknown fields).
 */
export function dtoObjectSchema(cls: DtoClass, originals: Record<string, JsonSchema> | undefined, nested: NestedSchema): JsonSchema {
  const out: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
  const required: string[] = [];
  for (const property of describeDto(cls).values()) {
    out.properties[property.name] = propertyJsonSchema(originals?.[property.name], property, nested);
    if (!property.optional) required.push(property.name);
  }
  if (required.length) out.required = required;
  const exactlyOne = Reflect.getMetadata(EXACTLY_ONE_OF, cls) as string[] | undefined;
  if (exactlyOne) out.oneOf = exactlyOne.map((name) => ({ required: [name] }));
  return out;
}

const EXACTLY_ONE_OF = 'gleaner:exactly-one-of';

/**
 * The object takes exactly one of these optional properties (`wait_for`: `selector` or `ms`; a monitor's
 * schedule: `every` or `cron`). Written into the document as `oneOf` of `required`, so a request the document
 * calls valid names exactly one; the service checks it too (its 422 says which).
 */
export function ExactlyOneOf(...names: string[]): ClassDecorator {
  return (target) => Reflect.defineMetadata(EXACTLY_ONE_OF, names, target);
}

/** What @ApiProperty says about a property, as schema keywords (the part a JSON Schema can carry). */
function decoratedSchema(cls: DtoClass, name: string): JsonSchema {
  const meta = Reflect.getMetadata('swagger/apiModelProperties', cls.prototype as object, name) as Record<string, unknown> | undefined;
  if (!meta) return {};
  const out: JsonSchema = {};
  for (const key of ['description', 'default', 'example', 'format', 'oneOf', 'anyOf', 'additionalProperties']) {
    if (meta[key] !== undefined && typeof meta[key] !== 'function') out[key] = meta[key];
  }
  if (Array.isArray(meta.enum)) out.enum = meta.enum;
  const type = meta.type;
  if (typeof type === 'string' && type !== 'array') out.type = type;
  else if (type === Object) out.type = 'object';
  else if (type === String) out.type = 'string';
  else if (type === Number) out.type = 'number';
  else if (type === Boolean) out.type = 'boolean';
  return out;
}

/**
 * A self-contained JSON Schema (2020-12) of a DTO class, nested DTOs inlined: what an MCP tool
 * declares as its input. The same keywords as the class's OpenAPI component.
 */
export function dtoJsonSchema(cls: DtoClass, path: DtoClass[] = []): JsonSchema {
  if (path.includes(cls)) throw new Error(`${cls.name} nests itself: it cannot be inlined`);
  const originals: Record<string, JsonSchema> = {};
  for (const name of describeDto(cls).keys()) originals[name] = decoratedSchema(cls, name);
  return dtoObjectSchema(cls, originals, (inner) => dtoJsonSchema(inner, [...path, cls]));
}
