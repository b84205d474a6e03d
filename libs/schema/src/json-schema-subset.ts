import type { ParseContext } from './context';
import { checkEnum } from './enum-values';
import { checkFieldName } from './field-name';
import { describeType, hasOwn, indexPath, isPlainObject, keyPath } from './issues';
import { SCHEMA_LIMITS } from './limits';
import { canonical, makeNullable, objectSchema } from './optional';
import { checkPattern } from './safe-pattern';
import type { JsonSchemaFormat, JsonSchemaObject, JsonSchemaType } from './types';

const TYPES: JsonSchemaType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const FORMATS: JsonSchemaFormat[] = ['date', 'date-time', 'uri', 'email'];
const COMMON = ['type', 'title', 'description', 'enum', 'const', 'nullable', 'anyOf', '$ref'];
const BY_TYPE: Record<string, string[]> = {
  string: ['format', 'pattern', 'minLength', 'maxLength'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
};
const TYPED_KEYWORDS = new Set(Object.values(BY_TYPE).flat());
const HINTS: Record<string, string> = {
  oneOf: 'oneOf is not supported; use anyOf',
  definitions: 'use "$defs" instead of "definitions"',
  $defs: '"$defs" is only allowed at the root',
  $schema: '"$schema" is only allowed at the root',
  prefixItems: 'tuples (prefixItems) are not supported; use "items" with one schema',
};
const SUPPORTED_SCHEMA_URIS = /^https?:\/\/json-schema\.org\/(draft\/2020-12|draft-07)\/schema#?$/;
const REF = /^#\/\$defs\/([^/]+)$/;

interface Def {
  value: unknown;
  schema?: JsonSchemaObject;
  fieldCount: number;
  state: 'pending' | 'resolving' | 'done';
}

/** JSON Schema form: a draft 2020-12 subset; `$ref`s (local `#/$defs/...`) are inlined. */
export function fromJsonSchema(root: Record<string, unknown>, location: string, ctx: ParseContext): JsonSchemaObject | undefined {
  return new JsonSchemaConverter(root, location, ctx).convertRoot();
}

class JsonSchemaConverter {
  private readonly defs = new Map<string, Def>();

  constructor(
    private readonly root: Record<string, unknown>,
    private readonly location: string,
    private readonly ctx: ParseContext,
  ) {}

  convertRoot(): JsonSchemaObject | undefined {
    const { root, location, ctx } = this;
    if (hasOwn(root, '$schema')) {
      const uri = root.$schema;
      if (typeof uri !== 'string' || !SUPPORTED_SCHEMA_URIS.test(uri)) {
        ctx.issues.add(keyPath(location, '$schema'), 'unsupported $schema; use https://json-schema.org/draft/2020-12/schema', uri);
      }
    }
    if (hasOwn(root, '$defs')) {
      const defsAt = keyPath(location, '$defs');
      if (!isPlainObject(root.$defs)) ctx.issues.add(defsAt, `$defs must be an object; got ${describeType(root.$defs)}`);
      else for (const [name, value] of Object.entries(root.$defs)) this.defs.set(name, { value, fieldCount: 0, state: 'pending' });
    }
    if (root.type !== 'object') {
      ctx.issues.add(
        keyPath(location, 'type'),
        'the root schema must have type "object"',
        typeof root.type === 'string' ? root.type : undefined,
      );
      return undefined;
    }
    const rest = { ...root };
    delete rest.$schema;
    delete rest.$defs;
    const schema = this.convert(rest, location, true);
    // Unused $defs are still checked, so mistakes in them are not silently kept.
    for (const [name, def] of this.defs) if (def.state === 'pending') this.resolveDef(name, def);
    return schema;
  }

  private convert(node: unknown, at: string, isRoot = false): JsonSchemaObject | undefined {
    const { ctx } = this;
    if (!isPlainObject(node)) {
      ctx.issues.add(at, `expected a schema object; got ${describeType(node)}`);
      return undefined;
    }
    if (hasOwn(node, '$ref')) return this.convertRef(node, at);
    const types = this.readType(node, at);
    if (types === null) return undefined;

    let ok = true;
    const allowed = new Set(COMMON);
    for (const type of types ?? []) for (const key of BY_TYPE[type] ?? []) allowed.add(key);
    for (const key of Object.keys(node)) {
      if (allowed.has(key)) continue;
      ok = false;
      const keyAt = keyPath(at, key);
      if (HINTS[key]) ctx.issues.add(keyAt, HINTS[key]);
      else if (TYPED_KEYWORDS.has(key)) ctx.issues.add(keyAt, `"${key}" does not apply to type ${types ? types.join(' | ') : '(none)'}`);
      else ctx.issues.add(keyAt, `unsupported JSON Schema keyword "${key}"`);
    }

    const out: JsonSchemaObject = {};
    out.title = this.text(node, 'title', at);
    out.description = this.text(node, 'description', at);
    if (hasOwn(node, 'anyOf')) {
      if (types || hasOwn(node, 'enum') || hasOwn(node, 'const')) {
        ctx.issues.add(keyPath(at, 'anyOf'), 'anyOf cannot be combined with type, enum or const here');
        return undefined;
      }
      out.anyOf = this.convertAnyOf(node.anyOf, keyPath(at, 'anyOf'));
      if (!out.anyOf) return undefined;
    } else if (!types && !hasOwn(node, 'enum') && !hasOwn(node, 'const')) {
      ctx.issues.add(at, 'schema needs a "type" (or enum, const, anyOf, $ref)');
      return undefined;
    }
    if (types) out.type = types.length === 1 ? types[0] : types;
    if (hasOwn(node, 'enum') && hasOwn(node, 'const')) ctx.issues.add(at, 'use either enum or const, not both');
    else if (hasOwn(node, 'enum')) out.enum = checkEnum(node.enum, keyPath(at, 'enum'), ctx, types);
    else if (hasOwn(node, 'const')) out.enum = checkEnum([node.const], keyPath(at, 'const'), ctx, types);

    const base = types?.find((type) => type !== 'null');
    if (base === 'object') {
      const object = this.convertObject(node, at, out);
      if (!object) return undefined;
      // Keep this node's own type (it may be ["object", "null"]).
      Object.assign(out, { properties: object.properties, required: object.required, additionalProperties: false });
    } else if (base === 'array') {
      if (!hasOwn(node, 'items')) {
        ctx.issues.add(at, 'an array schema needs "items"');
        return undefined;
      }
      out.items = this.convert(node.items, keyPath(at, 'items'));
      out.minItems = this.count(node, 'minItems', at);
      out.maxItems = this.count(node, 'maxItems', at);
      this.order(out.minItems, out.maxItems, keyPath(at, 'maxItems'), 'maxItems is less than minItems');
    } else if (base === 'string') {
      if (hasOwn(node, 'format')) {
        if (FORMATS.includes(node.format as JsonSchemaFormat)) out.format = node.format as JsonSchemaFormat;
        else ctx.issues.add(keyPath(at, 'format'), `unsupported format; use one of: ${FORMATS.join(', ')}`, node.format);
      }
      if (hasOwn(node, 'pattern')) out.pattern = this.pattern(node.pattern, keyPath(at, 'pattern'));
      out.minLength = this.count(node, 'minLength', at);
      out.maxLength = this.count(node, 'maxLength', at);
      this.order(out.minLength, out.maxLength, keyPath(at, 'maxLength'), 'maxLength is less than minLength');
    } else if (base === 'number' || base === 'integer') {
      for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) out[key] = this.number(node, key, at);
      this.order(out.minimum, out.maximum, keyPath(at, 'maximum'), 'maximum is less than minimum');
    }
    if (hasOwn(node, 'nullable') && typeof node.nullable !== 'boolean')
      ctx.issues.add(keyPath(at, 'nullable'), 'nullable must be true or false');
    if (isRoot && node.nullable === true) ctx.issues.add(keyPath(at, 'nullable'), 'the root schema cannot be nullable');
    if (!ok || (isRoot && node.nullable === true)) return undefined;
    const result = canonical(out);
    return node.nullable === true ? makeNullable(result) : result;
  }

  private convertObject(node: Record<string, unknown>, at: string, head: JsonSchemaObject): JsonSchemaObject | undefined {
    const { ctx } = this;
    if (hasOwn(node, 'additionalProperties') && node.additionalProperties !== false) {
      ctx.issues.add(
        keyPath(at, 'additionalProperties'),
        'additionalProperties must be false (the model may only fill listed fields)',
        typeof node.additionalProperties === 'boolean' ? node.additionalProperties : undefined,
      );
    }
    const propsAt = keyPath(at, 'properties');
    if (!isPlainObject(node.properties) || Object.keys(node.properties).length === 0) {
      ctx.issues.add(propsAt, 'an object schema needs non-empty "properties"');
      return undefined;
    }
    const required = new Set<string>();
    if (hasOwn(node, 'required')) {
      const reqAt = keyPath(at, 'required');
      if (!Array.isArray(node.required)) ctx.issues.add(reqAt, 'required must be a list of property names');
      else
        node.required.forEach((name: unknown, index) => {
          if (typeof name !== 'string' || !hasOwn(node.properties as object, name)) {
            ctx.issues.add(indexPath(reqAt, index), 'required names a property that is not in "properties"', name);
          } else if (required.has(name)) ctx.issues.add(indexPath(reqAt, index), `"${name}" is listed twice`, name);
          else required.add(name);
        });
    }
    const entries: Array<{ name: string; schema: JsonSchemaObject; required: boolean }> = [];
    for (const [name, value] of Object.entries(node.properties)) {
      const propAt = keyPath(propsAt, name);
      const problem = checkFieldName(name);
      if (problem) {
        ctx.issues.add(propAt, problem, name);
        continue;
      }
      ctx.countField(propAt);
      const schema = this.convert(value, propAt);
      if (schema) entries.push({ name, schema, required: required.has(name) });
    }
    return objectSchema(entries, { title: head.title, description: head.description });
  }

  private convertAnyOf(value: unknown, at: string): JsonSchemaObject[] | undefined {
    if (!Array.isArray(value) || value.length === 0 || value.length > 16) {
      this.ctx.issues.add(at, 'anyOf must be a list of 1 to 16 schemas');
      return undefined;
    }
    const branches = value.map((branch: unknown, index) => {
      const branchAt = indexPath(at, index);
      if (isPlainObject(branch) && hasOwn(branch, 'anyOf')) {
        this.ctx.issues.add(keyPath(branchAt, 'anyOf'), 'nested anyOf is not supported');
        return undefined;
      }
      return this.convert(branch, branchAt);
    });
    return branches.every((branch) => branch !== undefined) ? branches : undefined;
  }

  private convertRef(node: Record<string, unknown>, at: string): JsonSchemaObject | undefined {
    const { ctx } = this;
    const refAt = keyPath(at, '$ref');
    for (const key of Object.keys(node)) {
      if (!['$ref', 'title', 'description'].includes(key))
        ctx.issues.add(keyPath(at, key), `"${key}" cannot be combined with $ref (only title and description can)`);
    }
    const match = typeof node.$ref === 'string' ? REF.exec(node.$ref) : null;
    if (!match) {
      ctx.issues.add(refAt, 'only local references of the form "#/$defs/<name>" are supported', node.$ref);
      return undefined;
    }
    const name = match[1].replace(/~1/g, '/').replace(/~0/g, '~');
    const def = this.defs.get(name);
    if (!def) {
      ctx.issues.add(refAt, `no such definition "${name}" in $defs`, node.$ref);
      return undefined;
    }
    if (def.state === 'resolving') {
      ctx.issues.add(refAt, `recursive $ref is not supported (${node.$ref})`, node.$ref);
      return undefined;
    }
    if (def.state === 'done')
      ctx.countField(refAt, def.fieldCount); // each use is inlined, so each use counts
    else this.resolveDef(name, def);
    if (!def.schema) return undefined;
    const title = this.text(node, 'title', at) ?? def.schema.title;
    const description = this.text(node, 'description', at) ?? def.schema.description;
    return canonical({ ...def.schema, title, description });
  }

  private resolveDef(name: string, def: Def): void {
    def.state = 'resolving';
    const before = this.ctx.fieldCount;
    def.schema = this.convert(def.value, keyPath(keyPath(this.location, '$defs'), name));
    def.fieldCount = this.ctx.fieldCount - before;
    def.state = 'done';
  }

  /** The type list (undefined when absent, null when invalid). */
  private readType(node: Record<string, unknown>, at: string): JsonSchemaType[] | undefined | null {
    if (!hasOwn(node, 'type')) return undefined;
    const typeAt = keyPath(at, 'type');
    const raw = node.type;
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length === 0 || list.some((type) => !TYPES.includes(type as JsonSchemaType))) {
      this.ctx.issues.add(
        typeAt,
        `type must be one of ${TYPES.join(', ')} (or a list of one of them and "null")`,
        typeof raw === 'string' ? raw : undefined,
      );
      return null;
    }
    const unique = [...new Set(list as JsonSchemaType[])];
    if (unique.length !== list.length || unique.filter((type) => type !== 'null').length > 1) {
      this.ctx.issues.add(typeAt, 'a type list may only combine one type with "null"; use anyOf for other unions');
      return null;
    }
    // Canonical: the real type first, then null.
    return unique.sort((a, b) => (a === 'null' ? 1 : 0) - (b === 'null' ? 1 : 0));
  }

  private text(node: Record<string, unknown>, key: 'title' | 'description', at: string): string | undefined {
    if (!hasOwn(node, key)) return undefined;
    if (key === 'description') return this.ctx.description(node.description, keyPath(at, key));
    const value = node[key];
    if (typeof value !== 'string' || value.length > SCHEMA_LIMITS.maxNameLength * 2) {
      this.ctx.issues.add(keyPath(at, key), `${key} must be a string of at most ${SCHEMA_LIMITS.maxNameLength * 2} characters`);
      return undefined;
    }
    return value.trim() || undefined;
  }

  private count(node: Record<string, unknown>, key: string, at: string): number | undefined {
    if (!hasOwn(node, key)) return undefined;
    const value = node[key];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
    this.ctx.issues.add(keyPath(at, key), `${key} must be a non-negative integer`, value);
    return undefined;
  }

  private number(node: Record<string, unknown>, key: string, at: string): number | undefined {
    if (!hasOwn(node, key)) return undefined;
    const value = node[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    this.ctx.issues.add(keyPath(at, key), `${key} must be a number`, value);
    return undefined;
  }

  private pattern(value: unknown, at: string): string | undefined {
    if (typeof value !== 'string' || value.length > SCHEMA_LIMITS.maxPatternLength) {
      this.ctx.issues.add(at, `pattern must be a string of at most ${SCHEMA_LIMITS.maxPatternLength} characters`);
      return undefined;
    }
    const problem = checkPattern(value);
    if (problem) {
      this.ctx.issues.add(at, problem, value);
      return undefined;
    }
    return value;
  }

  private order(low: number | undefined, high: number | undefined, at: string, message: string): void {
    if (low !== undefined && high !== undefined && high < low) this.ctx.issues.add(at, message, high);
  }
}
