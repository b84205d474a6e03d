/** Cheap, regex-based page statistics shared by the detectors (no DOM build: pages can be 10 MiB). */
export interface PageStats {
  /** Visible text length (tags, scripts, styles, templates, noscript and comments removed; whitespace collapsed). */
  textLength: number;
  visibleText: string;
  /** Bytes of inline script code plus 2 KiB per external script (a rough weight). */
  scriptWeight: number;
  scriptCount: number;
  noscriptText: string;
  title: string;
}

const EXTERNAL_SCRIPT_WEIGHT = 2048;

export function pageStats(html: string): PageStats {
  let scriptWeight = 0;
  let scriptCount = 0;
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attrs = m[1];
    if (/type\s*=\s*["']?(application\/(ld\+)?json|text\/template|text\/x-template)/i.test(attrs)) continue;
    scriptCount++;
    scriptWeight += /\bsrc\s*=/i.test(attrs) ? EXTERNAL_SCRIPT_WEIGHT : m[2].length;
  }
  const noscriptText = [...html.matchAll(/<noscript\b[^>]*>([\s\S]*?)<\/noscript\s*>/gi)]
    .map((m) => stripTags(m[1]))
    .join(' ')
    .trim();
  const title = stripTags(/<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1] ?? '').trim();
  const body = /<body\b[^>]*>([\s\S]*)/i.exec(html)?.[1] ?? html;
  const visibleText = stripTags(
    body.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, ' '),
  );
  return { textLength: visibleText.length, visibleText, scriptWeight, scriptCount, noscriptText, title };
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|&#160;/g, ' ')
    .replace(/&[a-z]+;|&#\d+;/gi, 'x')
    .replace(/\s+/g, ' ')
    .trim();
}
