import { createHash } from 'node:crypto';

/**
 * The merge rules of docs/api.md "Results and downloads", as pure functions:
 * - a page whose `data` is an array contributes its elements;
 * - an object that is a wrapper of items contributes those items: exactly one of its top-level fields
 *   is an array and every element of that array is an object (`{"products": [{...}, {...}]}`); an empty
 *   array counts only when the object has no other non-null field (`{"products": []}` contributes
 *   nothing, `{"title": "x", "tags": []}` is a record and contributes itself);
 * - any other object (or scalar) contributes itself; `null` contributes nothing.
 */
export function expandPageData(data: unknown): unknown[] {
  if (data === null || data === undefined) return [];
  if (Array.isArray(data)) return data;
  if (!isPlainObject(data)) return [data];
  const arrayFields = Object.entries(data).filter(([, value]) => Array.isArray(value)) as Array<[string, unknown[]]>;
  if (arrayFields.length !== 1) return [data];
  const [field, items] = arrayFields[0];
  if (!items.every(isPlainObject)) return [data];
  if (items.length === 0) {
    const others = Object.entries(data).filter(([name, value]) => name !== field && value !== null && value !== undefined);
    return others.length === 0 ? [] : [data];
  }
  return items;
}

/**
 * What one stored page contributes to a merge: its data's items (expandPageData), except a page stored as
 * formats (a crawl or batch without a schema, `metadata.method: scrape`), which is one item: its URL and its
 * formats (a `links` list is the page's links, not items).
 */
export function mergeItemsOf(record: { url: string; data: unknown; metadata?: Record<string, unknown> | null }): unknown[] {
  if (record.metadata?.method === 'scrape' && isPlainObject(record.data)) return [{ url: record.url, ...record.data }];
  return expandPageData(record.data);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted at every level, so equal values serialise equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-1 of the canonical JSON (base64, 27 chars): what the dedupe set holds instead of the item. */
export function itemHash(value: unknown): string {
  return createHash('sha1').update(canonicalJson(value)).digest('base64').slice(0, 27);
}

/** The `url` field of an item, when it is an object with a non-empty string `url`. */
export function itemUrl(value: unknown): string | null {
  return isPlainObject(value) && typeof value.url === 'string' && value.url.length > 0 ? value.url : null;
}

/** Richness of an item: its number of top-level fields that are not null. */
export function richness(value: unknown): number {
  return isPlainObject(value) ? Object.values(value).filter((v) => v !== null && v !== undefined).length : 0;
}

/** Position of an item: the result's sequence number and the item's index within that page. */
export type ItemPosition = `${number}:${number}`;
