/**
 * Firecrawl's extract answers one object for all its URLs. The pages' data merged in page order: lists are
 * joined (an item repeated exactly is kept once), objects merged field by field, and a scalar is the first
 * page's value that is not null (docs/firecrawl.md "Extract").
 */
export function mergePageData(pages: readonly unknown[]): unknown {
  let merged: unknown = null;
  for (const page of pages) merged = mergeTwo(merged, page);
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function mergeTwo(a: unknown, b: unknown): unknown {
  if (a === null || a === undefined) return b ?? null;
  if (b === null || b === undefined) return a;
  if (Array.isArray(a) && Array.isArray(b)) {
    const seen = new Set(a.map((item) => JSON.stringify(item)));
    return [...a, ...b.filter((item) => !seen.has(JSON.stringify(item)))];
  }
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = mergeTwo(a[key], value);
    return out;
  }
  return a;
}
