import { pathSectionName } from './naming';
import { escapeRe2, re2MatchesAll } from './re2';
import type { FollowPattern, PageLink } from './types';

const MAX_SAMPLES = 5;
const MAX_PATTERNS = 10;
const MAX_LINKS = 5000;
/** Anchor texts of pagination controls. */
const PAGER_TEXT =
  /^(?:[«‹←<]\s*)?(next|prev|previous|older|newer|more|next page|previous page|older posts|newer posts|load more|first|last|suivant|précédent|weiter|zurück|siguiente|anterior|\d{1,4})(?:\s*[»›→>])?$|^[«‹←→›»<>]+$/i;
const PAGE_PARAM = /^(page|p|pg|paged|pagenum|page_num|offset|start|from|skip)$/i;
const PAGE_SEGMENT = /^(page|p|pages|seite|pagina)$/i;

interface ParsedLink {
  url: string;
  text: string;
  origin: string;
  segments: string[];
  trailingSlash: boolean;
  /** Raw (still percent-encoded) `key=value` pairs; value null for a bare `key`. */
  query: Array<[string, string | null]>;
}

type Token = { kind: 'lit'; value: string } | { kind: 'num'; mask: string } | { kind: 'var' };

interface Cluster {
  links: ParsedLink[];
  tokens: Token[];
}

/**
 * Groups same-host links by URL template and returns anchored RE2 patterns on absolute URLs,
 * pagination first, then large groups of detail pages. Every pattern is compiled with re2js and
 * checked against its samples.
 */
export function inferFollowPatterns(links: PageLink[], pageUrl: string): FollowPattern[] {
  return inferFollowPatternGroups(links, pageUrl).map((g) => g.pattern);
}

/** The patterns plus every distinct URL each one grouped (for picking sample links without re-matching). */
export function inferFollowPatternGroups(links: PageLink[], pageUrl: string): Array<{ pattern: FollowPattern; urls: string[] }> {
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    return [];
  }
  const parsed = dedupe(links.slice(0, MAX_LINKS), page);
  const buckets = new Map<string, ParsedLink[]>();
  for (const link of parsed) {
    const key = `${link.segments.length}|${link.trailingSlash}|${link.query.map(([k]) => k).join('&')}`;
    const list = buckets.get(key);
    if (list) list.push(link);
    else buckets.set(key, [link]);
  }
  const clusters: Cluster[] = [];
  for (const bucket of buckets.values()) split(bucket, 0, [], clusters);
  const candidates = clusters.map(toCandidate).filter((c): c is Candidate => c !== undefined);
  const rank = (p: Candidate): number => (p.kind === 'pagination' ? 0 : p.kind === 'detail' ? 1 : 2);
  candidates.sort(
    (a, b) => rank(a) - rank(b) || b.links.length - a.links.length || (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0),
  );
  const out: Array<{ pattern: FollowPattern; urls: string[] }> = [];
  const seen = new Set<string>();
  // RE2 compilation costs ~0.3 ms a pattern, so only the best candidates are validated.
  for (const c of candidates) {
    if (out.length >= MAX_PATTERNS) break;
    if (seen.has(c.pattern)) continue;
    seen.add(c.pattern);
    const samples = c.links.slice(0, MAX_SAMPLES).map((l) => l.url);
    if (!re2MatchesAll(c.pattern, samples)) continue;
    out.push({
      pattern: {
        pattern: c.pattern,
        description: describe(c.cluster, c.kind),
        sample_urls: samples,
        kind: c.kind,
        linkCount: c.links.length,
      },
      urls: c.links.map((l) => l.url),
    });
  }
  return out;
}

function dedupe(links: PageLink[], page: URL): ParsedLink[] {
  const byUrl = new Map<string, ParsedLink>();
  for (const link of links) {
    let url: URL;
    try {
      url = new URL(link.url, page);
    } catch {
      continue;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host.toLowerCase() !== page.host.toLowerCase()) continue;
    url.hash = '';
    const href = url.href;
    const text = (link.text ?? '').replace(/\s+/g, ' ').trim();
    const existing = byUrl.get(href);
    if (existing) {
      if (!existing.text && text) existing.text = text;
      continue;
    }
    const path = url.pathname;
    const segments = path.split('/').filter((s, i, all) => !(i === 0 && s === '') && !(i === all.length - 1 && s === ''));
    byUrl.set(href, {
      url: href,
      text,
      origin: `${url.protocol}//${url.host}`,
      segments,
      trailingSlash: path.length > 1 && path.endsWith('/'),
      query: url.search
        .slice(1)
        .split('&')
        .filter((p) => p.length > 0)
        .map((p): [string, string | null] => (p.includes('=') ? [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] : [p, null])),
    });
  }
  return [...byUrl.values()];
}

/** Segment with its digit runs masked: "page-12.html" → "page-\d+\.html"; undefined when it has no digits. */
function numericMask(segment: string): string | undefined {
  if (!/\d/.test(segment)) return undefined;
  return segment
    .split(/(\d+)/)
    .map((part, i) => (i % 2 === 1 ? '\\d+' : escapeRe2(part)))
    .join('');
}

function isSlugLike(segment: string): boolean {
  return /^[\w.~%+-]+$/.test(segment);
}

/**
 * Recursive split on path position `pos`: one digit-mask shared by all → `\d+`; many distinct
 * slug-like values → `[^/]+`; else one branch per literal value. The first position is only
 * generalised for long slugs ("/my-first-post/") since top-level segments are usually sections.
 */
function split(links: ParsedLink[], pos: number, tokens: Token[], out: Cluster[]): void {
  if (links.length === 0) return;
  const width = links[0].segments.length;
  if (pos >= width) {
    out.push({ links, tokens });
    return;
  }
  const values = links.map((l) => l.segments[pos]);
  const distinct = new Set(values);
  if (distinct.size === 1) {
    const value = values[0];
    const mask = numericMask(value);
    // A lone number still generalises: /page/2/ stands for every page.
    split(links, pos + 1, [...tokens, mask && /^\d+$/.test(value) ? { kind: 'num', mask } : { kind: 'lit', value }], out);
    return;
  }
  const masks = new Map<string, ParsedLink[]>();
  const unmasked: ParsedLink[] = [];
  for (const l of links) {
    const mask = numericMask(l.segments[pos]);
    if (mask) (masks.get(mask) ?? masks.set(mask, []).get(mask)!).push(l);
    else unmasked.push(l);
  }
  const slugs = [...distinct].every(isSlugLike);
  const longSlugs = [...distinct].filter((v) => (v.match(/-/g) ?? []).length >= 2 || v.length >= 20).length >= 0.8 * distinct.size;
  const collapsible = slugs && (pos > 0 ? distinct.size >= 3 || distinct.size === links.length : longSlugs && distinct.size >= 3);
  if (collapsible && !(masks.size === 1 && unmasked.length === 0)) {
    split(links, pos + 1, [...tokens, { kind: 'var' }], out);
    return;
  }
  for (const [mask, group] of masks) split(group, pos + 1, [...tokens, { kind: 'num', mask }], out);
  const byValue = new Map<string, ParsedLink[]>();
  for (const l of unmasked) (byValue.get(l.segments[pos]) ?? byValue.set(l.segments[pos], []).get(l.segments[pos])!).push(l);
  for (const [value, group] of byValue) split(group, pos + 1, [...tokens, { kind: 'lit', value }], out);
}

interface Candidate {
  pattern: string;
  kind: FollowPattern['kind'];
  links: ParsedLink[];
  cluster: Cluster;
}

function toCandidate(cluster: Cluster): Candidate | undefined {
  const { links, tokens } = cluster;
  const first = links[0];
  const generalised = tokens.some((t) => t.kind !== 'lit');
  const pagination = isPagination(cluster);
  // A single literal URL is a link, not a pattern (unless it is the "next" link).
  if (!generalised && !pagination && (links.length < 2 || !queryVaries(links))) return undefined;
  const path = tokens.map((t) => (t.kind === 'lit' ? escapeRe2(t.value) : t.kind === 'num' ? t.mask : '[^/]+')).join('/');
  let pattern = `^${escapeRe2(first.origin)}/${path}${first.trailingSlash ? '/' : ''}`;
  if (first.query.length > 0) pattern += `\\?${queryPattern(links)}`;
  pattern += '$';
  const kind: FollowPattern['kind'] = pagination ? 'pagination' : links.length >= 2 ? 'detail' : 'other';
  return { pattern, kind, links, cluster };
}

function queryVaries(links: ParsedLink[]): boolean {
  return new Set(links.map((l) => l.query.map(([k, v]) => `${k}=${v}`).join('&'))).size > 1;
}

/** Parameters in the first link's order: constant values literal, numbers `\d+`, anything else `[^&]*`. */
function queryPattern(links: ParsedLink[]): string {
  return links[0].query
    .map(([key, value], i) => {
      if (value === null) return escapeRe2(key);
      const values = new Set(links.map((l) => l.query[i]?.[1] ?? ''));
      if (values.size === 1 && !/^\d+$/.test(value)) return `${escapeRe2(key)}=${escapeRe2(value)}`;
      return [...values].every((v) => /^\d+$/.test(v)) ? `${escapeRe2(key)}=\\d+` : `${escapeRe2(key)}=[^&]*`;
    })
    .join('&');
}

function isPagination(cluster: Cluster): boolean {
  const { links, tokens } = cluster;
  const numericPagePath = tokens.some(
    (t, i) => t.kind === 'num' && i > 0 && tokens[i - 1].kind === 'lit' && PAGE_SEGMENT.test((tokens[i - 1] as { value: string }).value),
  );
  const pageParam = links[0].query.some(([k, v]) => PAGE_PARAM.test(k) && /^\d+$/.test(v ?? ''));
  const pagerText = links.some((l) => PAGER_TEXT.test(l.text));
  // Tag/category pages ("/tag/love/page/1/") carry a page number but their anchors name the tag.
  const variableSection = tokens.some((t) => t.kind === 'var');
  if (variableSection && !pagerText) return false;
  if (pagerText && (numericPagePath || pageParam || tokens.some((t) => t.kind === 'num'))) return true;
  if ((numericPagePath || pageParam) && links.every((l) => /^\d*$/.test(l.text) || PAGER_TEXT.test(l.text))) return true;
  return false;
}

function describe(cluster: Cluster, kind: FollowPattern['kind']): string {
  const texts = [...new Set(cluster.links.map((l) => l.text).filter((t) => t.length > 0 && t.length <= 40))].slice(0, 3);
  const n = cluster.links.length;
  const count = `${n} link${n === 1 ? '' : 's'}`;
  if (kind === 'pagination') {
    const pager = cluster.links.map((l) => l.text).filter((t) => PAGER_TEXT.test(t));
    return `Pagination (${[...new Set(pager.length ? pager : texts)].slice(0, 3).join(', ') || count})`;
  }
  const section = cluster.tokens.find((t) => t.kind === 'lit') as { value: string } | undefined;
  const name = section ? pathSectionName(`http://x/${section.value}/`) : '';
  const label = name ? `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, ' ')} pages` : 'Detail pages';
  return `${label} (${count}${texts.length ? `, e.g. ${texts.map((t) => `"${t}"`).join(', ')}` : ''})`;
}
