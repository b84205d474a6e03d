import { walk, type Document } from './dom';
import type { AttributeValue } from './types';
import type { UrlResolver } from './url-resolver';

/** Attributes whose values are text a reader (or a search engine) is shown: meta content, alt and title texts, form values, machine dates. */
const TEXT_ATTRIBUTES = ['content', 'alt', 'title', 'value', 'datetime'] as const;
/** Addresses, resolved to absolute URLs. */
const URL_ATTRIBUTES = ['href', 'src'] as const;
/** Never rendered (or not content: the document base, stylesheets and other linked resources). */
const SKIPPED = new Set(['script', 'style', 'template', 'base', 'link']);

/** Bounds (docs/provenance.md "Limits"): a page of 100,000 links does not make a list of 100,000 values. */
export const ATTRIBUTE_LIMITS = { maxValues: 20_000, maxChars: 2_000 } as const;

/**
 * The attribute values a value may be grounded on (docs/provenance.md "What counts as the page"), in document order,
 * each (name, value) once; `href`/`src` absolute. At most `ATTRIBUTE_LIMITS.maxValues`, each cut at `maxChars`.
 */
export function attributeValues(document: Document, resolver: UrlResolver): AttributeValue[] {
  const out: AttributeValue[] = [];
  const seen = new Set<string>();
  const add = (name: string, raw: string) => {
    const value = raw.length > ATTRIBUTE_LIMITS.maxChars ? raw.slice(0, ATTRIBUTE_LIMITS.maxChars) : raw;
    if (value.trim() === '' || out.length >= ATTRIBUTE_LIMITS.maxValues) return;
    const key = `${name}\u0000${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ name, value });
  };
  walk(document, (el) => {
    if (SKIPPED.has(el.name)) return false;
    if (out.length >= ATTRIBUTE_LIMITS.maxValues) return false;
    for (const name of TEXT_ATTRIBUTES) {
      const value = el.attribs[name];
      if (value !== undefined) add(name, value);
    }
    for (const name of URL_ATTRIBUTES) {
      const url = resolver.resolve(el.attribs[name]);
      if (url && (url.protocol === 'http:' || url.protocol === 'https:')) add(name, url.href);
    }
    return true;
  });
  return out;
}
