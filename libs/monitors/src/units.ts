import { normaliseScalar } from './diff';

/**
 * What a monitor compares (docs/monitors.md "Keys"): with no `key`, each page's record keyed by its URL;
 * with key fields at the top of the schema (`["sku"]`), each page's record keyed by them; with key fields
 * inside a list (`["products.sku"]`), each item of that list keyed by them, wherever it is found.
 */
export interface KeyPlan {
  /** The list holding the items (`products`), or null: a page's record is the unit. */
  list: string | null;
  /** The key fields, relative to the unit. */
  fields: string[];
}

type JsonSchema = Record<string, unknown>;

const propertiesOf = (schema: JsonSchema | undefined): Record<string, JsonSchema> =>
  (schema?.properties as Record<string, JsonSchema> | undefined) ?? {};

/** Whether a schema allows this type (`type` may be a list: `["array", "null"]`). */
const allows = (schema: JsonSchema, type: string) => (Array.isArray(schema.type) ? schema.type.includes(type) : schema.type === type);

/** The sub-schema at a dotted path, stepping into lists' items implicitly; null when the path is not in the schema. */
function schemaAt(schema: JsonSchema, path: string[]): { node: JsonSchema; listAt: number | null } | null {
  let node = schema;
  let listAt: number | null = null;
  for (let i = 0; i < path.length; i++) {
    const next = propertiesOf(node)[path[i]];
    if (!next) return null;
    node = next;
    if (allows(node, 'array') && i < path.length - 1) {
      listAt ??= i;
      node = (node.items as JsonSchema | undefined) ?? {};
    }
  }
  return { node, listAt };
}

/** The key plan of a monitor, or the problems of its key paths (at `body.key[i]`). */
export function keyPlan(
  schema: JsonSchema,
  key: string[],
): { plan: KeyPlan } | { problems: Array<{ location: string; message: string; value: unknown }> } {
  if (key.length === 0) return { plan: { list: null, fields: [] } };
  const problems: Array<{ location: string; message: string; value: unknown }> = [];
  let list: string | null | undefined;
  const fields: string[] = [];
  key.forEach((path, i) => {
    const parts = path.split('.');
    const found = schemaAt(schema, parts);
    if (!found || parts.some((p) => p === '')) {
      problems.push({ location: `body.key[${i}]`, message: 'is not a field of the schema', value: path });
      return;
    }
    if (allows(found.node, 'object') || allows(found.node, 'array')) {
      problems.push({ location: `body.key[${i}]`, message: 'must name a scalar field (text, number, boolean)', value: path });
      return;
    }
    const here = found.listAt === null ? null : parts.slice(0, found.listAt + 1).join('.');
    if (list !== undefined && list !== here) {
      problems.push({ location: `body.key[${i}]`, message: 'every key field must be in the same list (or all at the top)', value: path });
      return;
    }
    list = here;
    fields.push(here === null ? path : parts.slice(found.listAt! + 1).join('.'));
  });
  return problems.length ? { problems } : { plan: { list: list ?? null, fields } };
}

export interface Unit {
  /** `{url}` or the key fields' values. */
  key: Record<string, unknown>;
  /** The key as compared: normalised values, JSON. */
  id: string;
  url: string;
  record: unknown;
}

function valueAt(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * The units of one page's extracted data. An item (or a record) whose key fields are all empty is keyed
 * by the page URL and its position instead, so it is still followed (documented).
 */
export function unitsOf(plan: KeyPlan, url: string, data: unknown): Unit[] {
  if (plan.fields.length === 0) return [{ key: { url }, id: JSON.stringify(['url', url]), url, record: data }];
  const keyed = (record: unknown, fallback: string): Unit => {
    const key = Object.fromEntries(plan.fields.map((f) => [f, valueAt(record, f) ?? null]));
    const values = plan.fields.map((f) => normaliseScalar(key[f]));
    if (values.every((v) => v === null)) return { key: { url: fallback }, id: JSON.stringify(['url', fallback]), url, record };
    return { key, id: JSON.stringify(values), url, record };
  };
  if (plan.list === null) return [keyed(data, url)];
  const items = valueAt(data, plan.list);
  if (!Array.isArray(items)) return [];
  return items.map((item, i) => keyed(item, `${url}#${i}`));
}
