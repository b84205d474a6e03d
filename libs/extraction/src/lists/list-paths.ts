import type { JsonSchemaObject } from '@app/schema';
import { itemGroups, type ItemGroup } from './item-blocks';

/** An array of objects the schema asks for: the answer itself (`$`) or a top-level field of it. */
export interface ListPath {
  /** `$` (the answer is the list) or the field's name. */
  path: string;
  /** The item's field names (they help tell which of the page's lists is this one). */
  keys: string[];
}

function typesOf(schema: JsonSchemaObject | undefined): string[] {
  if (!schema) return [];
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

function objectItems(schema: JsonSchemaObject | undefined): JsonSchemaObject | null {
  if (!schema || !typesOf(schema).includes('array')) return null;
  const items = schema.items;
  return items && typesOf(items).includes('object') ? items : null;
}

/** The lists of objects of a schema: the root, or its top-level fields (a list nested deeper is not counted: docs/long-lists.md). */
export function listPaths(schema: JsonSchemaObject): ListPath[] {
  const root = objectItems(schema);
  if (root) return [{ path: '$', keys: Object.keys(root.properties ?? {}) }];
  return Object.entries(schema.properties ?? {}).flatMap(([name, child]) => {
    const items = objectItems(child);
    return items ? [{ path: name, keys: Object.keys(items.properties ?? {}) }] : [];
  });
}

/** The value at a list path of an answer (undefined: not a list there). */
export function listAt(data: unknown, path: string): unknown[] | undefined {
  const value = path === '$' ? data : data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[path] : undefined;
  return Array.isArray(value) ? value : undefined;
}

/** A list path and the page's group of items it is taken to be (null: no repeated structure found for it). */
export interface PageList extends ListPath {
  group: ItemGroup | null;
  /**
   * Another repeated structure of the page competes with the group counted (docs/long-lists.md "Counting items"):
   * the count may be of the wrong list, so the answer never calls the list complete.
   */
  contested?: boolean;
}

/** A rival group weighing at least this share of the chosen one's score makes the choice uncertain. */
const RIVAL_SHARE = 0.5;
/**
 * A group with more items than the chosen one makes it uncertain when its text is at least this share of the chosen
 * one's (a menu of short links beside a list of cards does not).
 */
const LARGER_RUN_SHARE = 0.25;
/**
 * A chosen group holding less than this share of the page's text (less the schema's other lists) may be a small list
 * beside the page's items, in a form the count does not see.
 */
const PAGE_SHARE = 0.25;

/**
 * Which of the page's groups of repeated items each list path is: the one with the most text, weighted by how many of
 * the item's field names the group's text names (a table's header, `Price:` labels). Two paths never share a group,
 * nor overlapping ones (a list inside a section of another run).
 */
export function pageLists(markdown: string, schema: JsonSchemaObject): PageList[] {
  const paths = listPaths(schema);
  if (paths.length === 0) return [];
  const groups = itemGroups(markdown);
  const scored = paths.flatMap((p, pathIndex) =>
    groups.map((group) => ({ pathIndex, group, score: group.text * (1 + namedShare(markdown, group, p.keys)) })),
  );
  scored.sort((a, b) => b.score - a.score || b.group.items.length - a.group.items.length);
  // Two groups over about the same stretch of text are one list split two ways: the finer split counts its items (a
  // run anchored on linked titles swallows the items whose title is plain text; the run of two-line openings does not).
  for (let k = 1; k < scored.length; k++) {
    const [a, b] = [scored[k - 1], scored[k]];
    if (a.pathIndex === b.pathIndex && b.group.items.length > a.group.items.length && sameStretch(a.group, b.group)) {
      scored[k - 1] = b;
      scored[k] = a;
    }
  }
  const chosen = new Map<number, ItemGroup>();
  for (const { pathIndex, group } of scored) {
    if (chosen.has(pathIndex)) continue;
    if ([...chosen.values()].some((other) => overlaps(other, group))) continue;
    chosen.set(pathIndex, group);
  }
  const taken = new Set(chosen.values());
  return paths.map((p, i) => {
    const group = chosen.get(i) ?? null;
    if (!group) return { ...p, group };
    const score = scored.find((s) => s.pathIndex === i && s.group === group)!.score;
    // The page's text less the other lists' (a schema's second, shorter list is measured against the rest).
    const rest = markdown.length - [...taken].reduce((n, g) => n + (g === group ? 0 : g.text), 0);
    const contested =
      group.text < rest * PAGE_SHARE ||
      scored.some(
        (s) =>
          s.pathIndex === i &&
          !taken.has(s.group) &&
          s.group.items.length !== group.items.length &&
          // A larger run of items with text of its own (a small group beside it), or a rival of about its weight.
          ((s.group.items.length > group.items.length && s.group.text >= group.text * LARGER_RUN_SHARE) ||
            (s.score >= score * RIVAL_SHARE && !overlaps(s.group, group))),
      );
    return { ...p, group, ...(contested ? { contested } : {}) };
  });
}

/** Share of each group's span the other covers for them to be one stretch of text. */
const SAME_STRETCH = 0.95;

function sameStretch(a: ItemGroup, b: ItemGroup): boolean {
  const [aStart, aEnd] = [a.items[0].start, a.items[a.items.length - 1].end];
  const [bStart, bEnd] = [b.items[0].start, b.items[b.items.length - 1].end];
  const common = Math.min(aEnd, bEnd) - Math.max(aStart, bStart);
  return common >= (aEnd - aStart) * SAME_STRETCH && common >= (bEnd - bStart) * SAME_STRETCH;
}

function overlaps(a: ItemGroup, b: ItemGroup): boolean {
  const [aStart, aEnd] = [a.items[0].start, a.items[a.items.length - 1].end];
  const [bStart, bEnd] = [b.items[0].start, b.items[b.items.length - 1].end];
  return aStart < bEnd && bStart < aEnd;
}

/** The share of `keys` the group's text (or its header) names, as words. */
function namedShare(markdown: string, group: ItemGroup, keys: string[]): number {
  if (keys.length === 0) return 0;
  const first = group.items[0];
  const last = group.items[group.items.length - 1];
  const text = `${group.prefix}\n${markdown.slice(first.start, Math.min(last.end, first.start + 4_000))}`.toLowerCase();
  const named = keys.filter((key) => {
    const words = key
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/[_-]+/g, ' ')
      .trim()
      .toLowerCase();
    return words !== '' && text.includes(words);
  });
  return named.length / keys.length;
}
