import { walk } from '@app/content';
import { type PageDom } from './dom';
import type { PageMetadataInput } from './types';

const MAX_JSON_LD_CHARS = 500_000;

/** Title, description, `og:*` and JSON-LD blocks, for callers that pass no metadata. */
export function extractMetadata(dom: PageDom): Required<Pick<PageMetadataInput, 'jsonLd' | 'openGraph'>> & PageMetadataInput {
  const openGraph: Record<string, string> = {};
  const jsonLd: unknown[] = [];
  let title: string | undefined;
  let description: string | undefined;
  walk(dom.doc, (el) => {
    if (el.name === 'title' && title === undefined) title = textOfTitle(el);
    if (el.name === 'meta') {
      const key = (el.attribs.property ?? el.attribs.name ?? '').toLowerCase();
      const content = el.attribs.content;
      if (content !== undefined) {
        if (/^(og|article|product):/.test(key) && openGraph[key] === undefined) openGraph[key] = content;
        if (key === 'description' && description === undefined) description = content;
      }
    }
    if (el.name === 'script' && /ld\+json/i.test(el.attribs.type ?? '')) {
      const raw = el.children.map((c) => ('data' in c ? String(c.data) : '')).join('');
      if (raw.length <= MAX_JSON_LD_CHARS) {
        try {
          jsonLd.push(JSON.parse(raw));
        } catch {
          /* invalid JSON-LD is common; skip it */
        }
      }
      return false;
    }
    return true;
  });
  return { title: title?.trim() || undefined, description, openGraph, jsonLd };
}

function textOfTitle(el: { children: unknown[] }): string {
  return el.children
    .map((c) => (c && typeof c === 'object' && 'data' in c ? String(c.data) : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Every `@type` in JSON-LD blocks (following `@graph` and nested objects, bounded). */
export function jsonLdTypes(jsonLd: unknown[] | undefined): string[] {
  const out: string[] = [];
  const stack: unknown[] = [...(jsonLd ?? [])];
  let budget = 2000;
  while (stack.length > 0 && budget-- > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      const t = (v as Record<string, unknown>)['@type'];
      if (typeof t === 'string') out.push(t);
      else if (Array.isArray(t)) for (const x of t) if (typeof x === 'string') out.push(x);
      for (const value of Object.values(v as Record<string, unknown>)) if (value && typeof value === 'object') stack.push(value);
    }
  }
  return out;
}

/** The first JSON-LD object whose `@type` matches. */
export function findJsonLd(jsonLd: unknown[] | undefined, type: RegExp): Record<string, unknown> | undefined {
  const stack: unknown[] = [...(jsonLd ?? [])].reverse();
  let budget = 2000;
  while (stack.length > 0 && budget-- > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...[...v].reverse());
    else if (v && typeof v === 'object') {
      const t = (v as Record<string, unknown>)['@type'];
      const types = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
      if (types.some((x) => type.test(x))) return v as Record<string, unknown>;
      for (const value of Object.values(v as Record<string, unknown>)) if (value && typeof value === 'object') stack.push(value);
    }
  }
  return undefined;
}
