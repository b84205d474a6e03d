import { describeDto, type DtoClass } from './dto-metadata';
import { peerFieldSuggestion } from './peer-field-names';

/** Levenshtein distance (insert, delete, substitute), small strings only. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** How far a typo may be: one edit per three characters, at most two (`max_page` → `max_pages`, not `admin` → `id`). */
function maxDistance(key: string): number {
  return Math.min(2, Math.floor(key.length / 3));
}

/** Every declared field of a DTO tree with its location (`body.options.max_pages`), nested DTOs followed a few levels. */
function fieldsOf(cls: DtoClass, path: string, depth = 0, out: Array<{ name: string; location: string }> = []) {
  if (depth > 4) return out;
  for (const property of describeDto(cls).values()) {
    const location = `${path}.${property.name}`;
    out.push({ name: property.name, location });
    if (property.nested) fieldsOf(property.nested, location, depth + 1, out);
  }
  return out;
}

/** `onlyMainContent` → `only_main_content`: callers coming from camelCase APIs. */
function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function nearest(candidates: string[], names: Iterable<string>, limit: number): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    for (const candidate of candidates) {
      const distance = editDistance(candidate, name.toLowerCase());
      if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
    }
  }
  return best?.name;
}

/**
 * What an unknown field probably meant: a declared field of the same object within a small edit distance
 * (camelCase read as snake_case), else that name declared at another level of the body (`max_pages` at the
 * top instead of under `options`, `schema` inside `options`). Undefined when nothing is close.
 */
export function suggestField(key: string, here: DtoClass, root: DtoClass, rootPath: string): string | undefined {
  if (key.length < 3) return undefined;
  // A peer API's name for a Gleaner field (Firecrawl's `limit` is `options.max_pages`): its table first.
  const known = fieldsOf(root, rootPath);
  const peer = peerFieldSuggestion(key, (path) => known.some((field) => field.location === `${rootPath}.${path}`));
  if (peer) return `${rootPath}.${peer}`;
  const candidates = [...new Set([key.toLowerCase(), snakeCase(key)])];
  const limit = maxDistance(key);
  const near = nearest(candidates, describeDto(here).keys(), limit);
  if (near) return near;
  const fields = known;
  const exact = fields.find((field) => candidates.includes(field.name));
  if (exact) return exact.location;
  const elsewhere = nearest(
    candidates,
    fields.map((field) => field.name),
    limit,
  );
  return elsewhere ? fields.find((field) => field.name === elsewhere)?.location : undefined;
}
