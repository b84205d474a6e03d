import { calendarDate, httpUrlOf, instantOf } from '@app/core';
import type { JsonSchemaObject, JsonSchemaType } from '@app/schema';

/** A path in the model's answer (property names and list indices). */
export type AnswerPath = ReadonlyArray<string | number>;

/**
 * A value of the model's answer that coercion replaced by null: a text the schema's non-text type cannot read
 * (`"Call for price"` for a `number | null`), or an empty text where null is allowed. Provenance gives such a null
 * its reason (`coerce_failed`, `model_empty`) and, with `full`, the model's own value (docs/provenance.md "Reasons").
 */
export interface CoercedToNull {
  path: AnswerPath;
  value: unknown;
}

/**
 * Coerces obvious forms in a model reply to what the schema asks for, before validation:
 * "$1,299.00" → 1299, "1.299,00 €" → 1299, "yes" → true, "March 3, 2024" → "2024-03-03",
 * relative URLs → absolute, "" → null where null is allowed, a lone value → [value] for arrays.
 * A number or boolean text it cannot read becomes null where null is allowed (and no `anyOf` option takes the text
 * as it is); `nulled` lists the values it replaced by null. Anything else it cannot coerce is left as is for the
 * validator to report.
 */
export function coerceToSchema(value: unknown, schema: JsonSchemaObject, pageUrl?: string, nulled?: CoercedToNull[]): unknown {
  return coerce(value, schema, { pageUrl, nulled: nulled ?? [], nullUnreadable: true }, []);
}

interface Coercion {
  pageUrl?: string;
  nulled: CoercedToNull[];
  /** Whether a number or boolean text that cannot be read becomes null (where null is allowed). */
  nullUnreadable: boolean;
}

function coerce(value: unknown, schema: JsonSchemaObject, how: Coercion, path: AnswerPath): unknown {
  const types = typesOf(schema);
  if (value === undefined) return types.includes('null') ? null : value;
  if (schema.anyOf) {
    // An option that takes the value as it is comes before one that would replace a text it cannot read by null.
    for (const nullUnreadable of how.nullUnreadable ? [false, true] : [false]) {
      for (const option of schema.anyOf) {
        const nulled: CoercedToNull[] = [];
        const coerced = coerce(value, option, { ...how, nulled, nullUnreadable }, path);
        if (matchesType(coerced, typesOf(option))) {
          how.nulled.push(...nulled);
          return coerced;
        }
      }
    }
    return value;
  }
  if (value === null) return value;
  const toNull = () => {
    how.nulled.push({ path, value });
    return null;
  };
  const unreadable = () => (how.nullUnreadable && types.includes('null') && !types.includes('string') ? toNull() : value);
  if (typeof value === 'string' && value.trim() === '' && types.includes('null') && !types.includes('string')) return toNull();
  if (types.includes('array')) {
    const list = Array.isArray(value) ? value : value === null ? value : [value];
    return Array.isArray(list) && schema.items ? list.map((item, i) => coerce(item, schema.items!, how, [...path, i])) : list;
  }
  if (types.includes('object') && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    const properties = schema.properties ?? {};
    for (const [key, child] of Object.entries(properties)) {
      out[key] = coerce((value as Record<string, unknown>)[key], child, how, [...path, key]);
      if (out[key] === undefined) delete out[key];
    }
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (!(key in properties)) out[key] = child; // left for the validator (additionalProperties: false)
    }
    return out;
  }
  if ((types.includes('number') || types.includes('integer')) && typeof value === 'string') {
    const n = parseNumber(value);
    if (n !== undefined)
      return types.includes('integer') && !types.includes('number') && Number.isInteger(Math.round(n)) ? Math.round(n) : n;
    return unreadable();
  }
  if (types.includes('integer') && typeof value === 'number' && !Number.isInteger(value) && !types.includes('number'))
    return Math.round(value);
  if (types.includes('boolean') && typeof value === 'string') {
    const b = parseBoolean(value);
    return b !== undefined ? b : unreadable();
  }
  if (types.includes('string')) {
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (typeof value !== 'string') return value;
    if (schema.format === 'date') return toIsoDate(value) ?? value;
    if (schema.format === 'date-time') return toIsoDateTime(value) ?? value;
    if (schema.format === 'uri') return toAbsoluteUrl(value, how.pageUrl) ?? value;
    return value;
  }
  return value;
}

function typesOf(schema: JsonSchemaObject): JsonSchemaType[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

function matchesType(value: unknown, types: JsonSchemaType[]): boolean {
  if (types.length === 0) return true;
  return types.some((t) =>
    t === 'null'
      ? value === null
      : t === 'array'
        ? Array.isArray(value)
        : t === 'object'
          ? typeof value === 'object' && value !== null && !Array.isArray(value)
          : t === 'integer'
            ? Number.isInteger(value)
            : typeof value === t,
  );
}

/** "$1,299.00", "1 299,50 €", "-12.5%", "1.2k" → numbers; ambiguous separators resolved by position. */
export function parseNumber(raw: string): number | undefined {
  let text = raw.trim().replace(/[\s\u00a0\u202f]/g, '');
  const multiplier = /k$/i.test(text) ? 1_000 : /m$/i.test(text) ? 1_000_000 : 1;
  if (multiplier !== 1) text = text.slice(0, -1);
  text = text.replace(/^[^\d.,+-]+|[^\d.,]+$/g, '');
  if (!/^[+-]?[\d.,]+$/.test(text)) return undefined;
  const lastComma = text.lastIndexOf(',');
  const lastDot = text.lastIndexOf('.');
  if (lastComma > -1 && lastDot > -1) {
    text = lastComma > lastDot ? text.replace(/\./g, '').replace(',', '.') : text.replace(/,/g, '');
  } else if (lastComma > -1) {
    // "1,299" is a thousands separator; "12,5" a decimal comma.
    text = /,\d{3}$/.test(text) && text.split(',').length >= 2 ? text.replace(/,/g, '') : text.replace(',', '.');
  } else if ((text.match(/\./g) ?? []).length > 1) {
    text = text.replace(/\./g, '');
  }
  const n = Number(text);
  return Number.isFinite(n) ? n * multiplier : undefined;
}

export function parseBoolean(raw: string): boolean | undefined {
  const text = raw.trim().toLowerCase();
  if (['true', 'yes', 'y', '1', 'in stock', 'available', 'on'].includes(text)) return true;
  if (['false', 'no', 'n', '0', 'out of stock', 'unavailable', 'off'].includes(text)) return false;
  return undefined;
}

/** A calendar date in ISO 8601 (YYYY-MM-DD), read in UTC so the day never shifts. */
export function toIsoDate(raw: string): string | undefined {
  return calendarDate(raw);
}

export function toIsoDateTime(raw: string): string | undefined {
  const text = raw.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) return new Date(text).toISOString();
  return instantOf(text);
}

function toAbsoluteUrl(raw: string, base?: string): string | undefined {
  return httpUrlOf(raw, base);
}
