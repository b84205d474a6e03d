import type { JsonSchemaObject, JsonSchemaType } from '@app/schema';

/**
 * Coerces obvious forms in a model reply to what the schema asks for, before validation:
 * "$1,299.00" → 1299, "1.299,00 €" → 1299, "yes" → true, "March 3, 2024" → "2024-03-03",
 * relative URLs → absolute, "" → null where null is allowed, a lone value → [value] for arrays.
 * Anything it cannot coerce is left as is for the validator to report.
 */
export function coerceToSchema(value: unknown, schema: JsonSchemaObject, pageUrl?: string): unknown {
  const types = typesOf(schema);
  if (value === undefined) return types.includes('null') ? null : value;
  if (schema.anyOf) {
    for (const option of schema.anyOf) {
      const coerced = coerceToSchema(value, option, pageUrl);
      if (matchesType(coerced, typesOf(option))) return coerced;
    }
    return value;
  }
  if (value === null) return value;
  if (typeof value === 'string' && value.trim() === '' && types.includes('null') && !types.includes('string')) return null;
  if (types.includes('array')) {
    const list = Array.isArray(value) ? value : value === null ? value : [value];
    return Array.isArray(list) && schema.items ? list.map((item) => coerceToSchema(item, schema.items!, pageUrl)) : list;
  }
  if (types.includes('object') && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    const properties = schema.properties ?? {};
    for (const [key, child] of Object.entries(properties)) {
      out[key] = coerceToSchema((value as Record<string, unknown>)[key], child, pageUrl);
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
    return value;
  }
  if (types.includes('integer') && typeof value === 'number' && !Number.isInteger(value) && !types.includes('number'))
    return Math.round(value);
  if (types.includes('boolean') && typeof value === 'string') {
    const b = parseBoolean(value);
    return b === undefined ? value : b;
  }
  if (types.includes('string')) {
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (typeof value !== 'string') return value;
    if (schema.format === 'date') return toIsoDate(value) ?? value;
    if (schema.format === 'date-time') return toIsoDateTime(value) ?? value;
    if (schema.format === 'uri') return toAbsoluteUrl(value, pageUrl) ?? value;
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
  const text = raw.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const iso = /^(\d{4}-\d{2}-\d{2})T/.exec(text);
  if (iso) return iso[1];
  const dmy = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(text);
  if (dmy) return `${dmy[3]}-${dmy[2].padStart(2, '0')}-${dmy[1].padStart(2, '0')}`;
  const time = Date.parse(`${text.replace(/(\d)(st|nd|rd|th)\b/g, '$1')} UTC`);
  if (Number.isNaN(time)) return undefined;
  return new Date(time).toISOString().slice(0, 10);
}

export function toIsoDateTime(raw: string): string | undefined {
  const text = raw.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) return new Date(text).toISOString();
  const time = Date.parse(/\b(Z|UTC|GMT|[+-]\d{2}:?\d{2})\b/.test(text) ? text : `${text} UTC`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function toAbsoluteUrl(raw: string, base?: string): string | undefined {
  try {
    const url = new URL(raw.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
