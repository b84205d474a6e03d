import { findJsonLd } from './metadata';
import { pluralize, singularize } from './naming';
import type { DetailField, DetectedElement, FieldKind, FollowPattern, PageMetadataInput, PageType } from './types';

export interface SchemaSuggestionInput {
  repeated: DetectedElement[];
  pageType: PageType;
  metadata?: PageMetadataInput;
  /** Adds `next_page: url` when one of them is pagination. */
  followPatterns?: FollowPattern[];
  /** Label/value pairs and heading of a detail page. */
  detailFields?: DetailField[];
}

const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Top-level names that would make the shorthand mean another schema form. */
const RESERVED_TOP = new Set(['fields', 'type', '$schema', 'properties']);
const MAX_ITEM_FIELDS = 12;
const MAX_DETAIL_FIELDS = 15;
const ITEM_SUFFIX = /_(card|item|items|row|tile|entry|box|wrapper|container|block|cell|result|listing)$/;

/**
 * A schema-language (shorthand YAML) suggestion from page structure alone: the fallback when no
 * model is available, and a hint inside the model prompt. Always parses with `parseSchema`.
 */
export function suggestSchemaFromStructure(input: SchemaSuggestionInput): string {
  const fields = new Map<string, string>();
  const main = input.repeated.find((r) => r.type !== 'form' && r.fields.length > 0);
  const listLike = input.pageType === 'listing' || input.pageType === 'search' || input.pageType === 'home';
  if (main && (listLike || (input.pageType === 'other' && main.textShare >= 0.3))) {
    const item = itemSchema(main);
    fields.set(listName(main), `[{${item.join(', ')}}]`);
    if (input.followPatterns?.some((p) => p.kind === 'pagination')) fields.set('next_page', 'url');
  } else if (input.pageType === 'product') {
    productFields(input, fields);
  } else if (input.pageType === 'article') {
    articleFields(input, fields);
  } else if (listLike) {
    fields.set('items', '[{title: string, url: url}]');
    if (input.followPatterns?.some((p) => p.kind === 'pagination')) fields.set('next_page', 'url');
  } else {
    detailFieldsInto(input.detailFields ?? [], fields);
    if (fields.size <= 1) {
      fields.set('title', 'string');
      fields.set('description', 'string');
    }
  }
  return (
    [...fields.entries()]
      .filter(([name]) => FIELD_NAME.test(name))
      .map(([name, type]) => `${RESERVED_TOP.has(name) ? `${name}_value` : name}: ${type}`)
      .join('\n') + '\n'
  );
}

export function schemaType(kind: FieldKind): string {
  switch (kind) {
    case 'number':
      return 'number';
    case 'url':
    case 'image':
      return 'url';
    case 'date':
      return 'date';
    case 'list':
      return '[string]';
    default:
      return 'string';
  }
}

function itemSchema(el: DetectedElement): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const f of el.fields) {
    if (!FIELD_NAME.test(f.name) || seen.has(f.name)) continue;
    seen.add(f.name);
    out.push(`${f.name}: ${schemaType(f.kind)}`);
    if (out.length >= MAX_ITEM_FIELDS) break;
  }
  return out.length ? out : ['title: string', 'url: url'];
}

/** "quote" → "quotes", "product_card" → "products", "table_row" → "rows". */
function listName(el: DetectedElement): string {
  let base = el.name;
  if (el.type === 'link_list') base = base.replace(/_link$/, '') || 'link';
  if (base === 'table_row') base = 'row';
  else if (base === 'list_item') base = 'item';
  else if (ITEM_SUFFIX.test(base)) base = base.replace(ITEM_SUFFIX, '');
  const name = pluralize(singularize(base));
  return FIELD_NAME.test(name) && !RESERVED_TOP.has(name) ? name : 'items';
}

function detailFieldsInto(detail: DetailField[], fields: Map<string, string>): void {
  for (const f of detail) {
    if (fields.size >= MAX_DETAIL_FIELDS) break;
    if (FIELD_NAME.test(f.name) && !fields.has(f.name)) fields.set(f.name, schemaType(f.kind));
  }
}

function productFields(input: SchemaSuggestionInput, fields: Map<string, string>): void {
  const product = findJsonLd(input.metadata?.jsonLd, /^Product(Group)?$/);
  fields.set('name', 'string');
  fields.set('price', 'number');
  fields.set('currency', 'string');
  if (product) {
    if (product.sku !== undefined) fields.set('sku', 'string');
    if (product.brand !== undefined) fields.set('brand', 'string');
    if (product.aggregateRating !== undefined) fields.set('rating', 'number');
  }
  fields.set('availability', 'string');
  fields.set('description', 'string');
  fields.set('image', 'url');
  for (const f of input.detailFields ?? []) {
    if (f.name === 'title' || fields.size >= MAX_DETAIL_FIELDS + 5) continue;
    if (FIELD_NAME.test(f.name) && !fields.has(f.name)) fields.set(f.name, schemaType(f.kind));
  }
}

function articleFields(input: SchemaSuggestionInput, fields: Map<string, string>): void {
  fields.set('title', 'string');
  fields.set('author', 'string');
  fields.set('published', 'date');
  fields.set('summary', 'string');
  fields.set('body', 'string');
  const article = findJsonLd(input.metadata?.jsonLd, /Article|BlogPosting/);
  if (article?.keywords !== undefined || input.metadata?.openGraph?.['article:tag'] !== undefined) fields.set('tags', '[string]');
}
