import type { FieldChange } from './monitor.types';

/** 1,299.50 or 1 299,50 style digit groups: a separator every three digits. */
const GROUPED_NUMBER = /^[+-]?\d{1,3}([,\u00a0\u202f _]\d{3})+(\.\d+)?$/;
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A scalar as compared (docs/monitors.md "Normalisation"): text in Unicode NFKC with its whitespace
 * trimmed and collapsed; a text that is a number (digit groups separated by `,`, spaces or `_` every three
 * digits, `.` for decimals) compares as that number, so `1,299.00` equals `1299`; `null`, a missing
 * value and an empty text are the same.
 */
export function normaliseScalar(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return JSON.stringify(value);
  const text = value.normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  if (PLAIN_NUMBER.test(text)) return Number(text);
  if (GROUPED_NUMBER.test(text)) return Number(text.replace(/[,\u00a0\u202f _]/g, ''));
  return text;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown) => value === null || value === undefined || ['string', 'number', 'boolean'].includes(typeof value);

/** How lists of objects below a path are matched: by these key fields, else by position. */
export type ListKeys = Record<string, string[]>;

/**
 * The fields of `after` that differ from `before`, with their paths (`price`, `offer.currency`,
 * `variants[sku=A1].stock`, `images`). Lists of scalars compare as sets (order and repeats are not a
 * change); lists of objects are matched by the key fields given for their path, else by position.
 */
export function diffRecords(before: unknown, after: unknown, listKeys: ListKeys = {}, path = ''): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    const out: FieldChange[] = [];
    for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      out.push(...diffRecords(before[name], after[name], listKeys, path ? `${path}.${name}` : name));
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) return diffLists(before, after, listKeys, path);
  if (isScalar(before) && isScalar(after)) {
    return normaliseScalar(before) === normaliseScalar(after) ? [] : [{ path, before: before ?? null, after: after ?? null }];
  }
  // A shape change (an object became a list, a value became an object): the whole value, unless both are empty.
  if (isEmpty(before) && isEmpty(after)) return [];
  return [{ path, before: before ?? null, after: after ?? null }];
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

function diffLists(before: unknown[], after: unknown[], listKeys: ListKeys, path: string): FieldChange[] {
  if (before.every(isScalar) && after.every(isScalar)) {
    const a = new Set(before.map((v) => JSON.stringify(normaliseScalar(v))));
    const b = new Set(after.map((v) => JSON.stringify(normaliseScalar(v))));
    const same = a.size === b.size && [...a].every((v) => b.has(v));
    return same ? [] : [{ path, before, after }];
  }
  const keys = listKeys[path];
  if (keys && before.every(isObject) && after.every(isObject)) {
    const byKey = (list: Record<string, unknown>[]) => new Map(list.map((item) => [keyLabel(item, keys), item]));
    const a = byKey(before);
    const b = byKey(after);
    const out: FieldChange[] = [];
    for (const label of [...new Set([...a.keys(), ...b.keys()])]) {
      out.push(...diffRecords(a.get(label) ?? null, b.get(label) ?? null, listKeys, `${path}[${label}]`));
    }
    return out;
  }
  const out: FieldChange[] = [];
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    out.push(...diffRecords(before[i] ?? null, after[i] ?? null, listKeys, `${path}[${i}]`));
  }
  return out;
}

/** `sku=A1` (or `sku=A1,size=M`) for an item of a keyed list. */
export function keyLabel(item: Record<string, unknown>, keys: string[]): string {
  return keys.map((k) => `${k}=${String(normaliseScalar(item[k]))}`).join(',');
}
