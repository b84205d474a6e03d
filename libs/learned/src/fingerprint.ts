import { createHash } from 'node:crypto';
import { bodyOf, childElements, type Document, type Element } from '@app/content';

/** Tags that say nothing about a page's template (inline formatting, scripts, media inside content). */
const IGNORED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'br',
  'wbr',
  'b',
  'i',
  'em',
  'strong',
  'u',
  'small',
  'sup',
  'sub',
  'font',
  'span',
  'a',
  'img',
  'svg',
  'path',
  'option',
]);

export interface TemplateFingerprint {
  /** Distinct root-to-element tag paths (`body/div/div/h2`), sorted. */
  features: string[];
}

/**
 * The structural fingerprint of a page: the set of tag paths from `<body>` down to `depth` levels,
 * ignoring inline and text-level tags, classes, ids and sibling order. Pages rendered from one
 * template share almost all of these whatever their text (a second author, a longer review list
 * add nothing new); pages of different templates differ in the block structure. Class names are
 * left out on purpose: a template whose classes are renamed is still the same template, so its
 * program is retired by checks instead of silently never being used again.
 */
export function fingerprint(doc: Document, depth = 12, maxFeatures = 4000): TemplateFingerprint {
  const features = new Set<string>();
  const stack: Array<{ el: Element | Document; path: string; level: number }> = [{ el: bodyOf(doc), path: 'body', level: 0 }];
  while (stack.length > 0 && features.size < maxFeatures) {
    const { el, path, level } = stack.pop()!;
    if (level >= depth) continue;
    for (const child of childElements(el)) {
      if (IGNORED.has(child.name)) continue;
      const childPath = `${path}/${child.name}`;
      features.add(childPath);
      stack.push({ el: child, path: childPath, level: level + 1 });
    }
  }
  return { features: [...features].sort() };
}

/** Jaccard similarity of two fingerprints' feature sets (1 for two empty pages). */
export function similarity(a: TemplateFingerprint, b: TemplateFingerprint): number {
  if (a.features.length === 0 && b.features.length === 0) return 1;
  const small = a.features.length <= b.features.length ? a.features : b.features;
  const large = new Set(a.features.length <= b.features.length ? b.features : a.features);
  let shared = 0;
  for (const f of small) if (large.has(f)) shared++;
  return shared / (a.features.length + b.features.length - shared);
}

/** A template of one host: its id and the fingerprint of the page that founded it. */
export interface TemplateRef {
  id: string;
  host: string;
  fingerprint: TemplateFingerprint;
}

export function templateId(host: string, print: TemplateFingerprint): string {
  return `tpl_${createHash('sha256').update(host).update('\n').update(print.features.join('\n')).digest('hex').slice(0, 16)}`;
}

/**
 * Groups pages into templates per host: a page joins the most similar known template of its host
 * when the similarity reaches `threshold`, otherwise it founds a new one. Templates are compared
 * with their founding page only, so a template cannot drift into another one page by page.
 */
export class TemplateRegistry {
  private readonly byHost = new Map<string, TemplateRef[]>();

  constructor(
    private readonly threshold: number,
    private readonly maxTemplatesPerHost = 200,
  ) {}

  /** Known templates (e.g. from the store) join the registry before any page is matched. */
  add(template: TemplateRef): void {
    const list = this.byHost.get(template.host) ?? [];
    if (!list.some((t) => t.id === template.id)) list.push(template);
    this.byHost.set(template.host, list);
  }

  /** The template of a page, creating it when no known one is similar enough. */
  match(host: string, print: TemplateFingerprint): { template: TemplateRef; similarity: number; created: boolean } {
    const list = this.byHost.get(host) ?? [];
    let best: TemplateRef | undefined;
    let bestScore = -1;
    for (const template of list) {
      const score = similarity(template.fingerprint, print);
      if (score > bestScore) {
        best = template;
        bestScore = score;
      }
    }
    if (best && bestScore >= this.threshold) return { template: best, similarity: bestScore, created: false };
    const template: TemplateRef = { id: templateId(host, print), host, fingerprint: print };
    if (list.length < this.maxTemplatesPerHost) {
      list.push(template);
      this.byHost.set(host, list);
    }
    return { template, similarity: 1, created: true };
  }

  templates(): TemplateRef[] {
    return [...this.byHost.values()].flat();
  }
}
