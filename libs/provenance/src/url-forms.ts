/**
 * URLs as grounding compares them: absolute http(s) only, the fragment dropped, a trailing slash of the path
 * dropped, percent-escapes decoded where that is unambiguous (`%28` and `(` are one character), the host lower case
 * (the URL parser does that). `undefined` for anything else.
 */
export function urlKey(raw: string, base?: string): string | undefined {
  const text = raw.trim();
  if (text === '' || text.length > 4096) return undefined;
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  let path = url.pathname;
  try {
    path = decodeURI(path);
  } catch {
    // a lone `%`: compared as written
  }
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  let search = url.search;
  try {
    search = decodeURI(search);
  } catch {
    // as written
  }
  return `${url.protocol}//${url.host}${path}${search}`;
}

/** Whether a text value reads as an absolute web address (checked as a URL as well as by its words). */
export function looksLikeUrl(text: string): boolean {
  const t = text.trim();
  return (t.startsWith('http://') || t.startsWith('https://')) && !/\s/.test(t);
}

/**
 * Markdown link and image targets `](target)` of a text: the spans to leave out of its words (a link's address is
 * not text a reader sees) and the targets, read as URLs. Linear: each `](` is followed to its `)` at most once.
 */
export function markdownTargets(text: string): { skip: number[]; targets: Array<{ url: string; start: number; end: number }> } {
  const skip: number[] = [];
  const targets: Array<{ url: string; start: number; end: number }> = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('](', from);
    if (open < 0) break;
    const close = text.indexOf(')', open + 2);
    // The renderer escapes spaces and parentheses in targets: a target runs to the first `)` on its line.
    const newline = text.indexOf('\n', open + 2);
    if (close < 0 || (newline >= 0 && newline < close) || close - open > 4096) {
      from = open + 2;
      continue;
    }
    let target = text.slice(open + 2, close).trim();
    if (target.startsWith('<') && target.endsWith('>')) target = target.slice(1, -1);
    const titled = target.indexOf(' "');
    if (titled > 0) target = target.slice(0, titled);
    skip.push(open + 1, close + 1);
    targets.push({ url: target, start: open + 2, end: close });
    from = close + 1;
  }
  return { skip, targets };
}
