import { pageStats, type PageStats } from './text-stats';

/** Does a statically fetched HTML page need a browser to show its content? (rules: README "Detection") */
export interface JsVerdict {
  needsJs: boolean;
  /** Which rule fired, for logs and FetchResult.escalation. */
  reason?: string;
  stats: Pick<PageStats, 'textLength' | 'scriptWeight' | 'scriptCount'>;
}

export interface JsDetectorOptions {
  /** Below this much visible text, a page with scripts is treated as a JS shell. */
  minTextLength?: number;
  /** A page with less text than this may still need JS when other signals fire. */
  shortTextLength?: number;
}

const SPA_ROOT =
  /<(div|main|section)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|main-app|react-root|app-root)["']?[^>]*>\s*(<!--[\s\S]*?-->\s*)?<\/\1\s*>/i;
const ANGULAR_ROOT = /<(app-root|ng-app)\b[^>]*>\s*<\/\1\s*>/i;
const NOSCRIPT_JS_MESSAGE =
  /(enable|turn on|activate|requires?|need)\s+(your\s+)?javascript|javascript\s+(is\s+)?(required|disabled|must be enabled|needs to be enabled)|browser (does not|doesn't) support javascript/i;
const META_REFRESH = /<meta[^>]+http-equiv\s*=\s*["']?refresh["']?[^>]*content\s*=\s*["']?\s*(\d+)\s*;?\s*(url\s*=\s*)?([^"'>]*)/i;

export function detectNeedsJs(html: string, options: JsDetectorOptions = {}): JsVerdict {
  const minText = options.minTextLength ?? 200;
  const shortText = options.shortTextLength ?? 1000;
  const stats = pageStats(html);
  const verdict = (reason: string): JsVerdict => ({ needsJs: true, reason, stats: pick(stats) });
  const short = stats.textLength < shortText;

  if (short && (SPA_ROOT.test(html) || ANGULAR_ROOT.test(html)) && stats.scriptCount > 0) {
    return verdict(`empty application root container and only ${stats.textLength} chars of text`);
  }
  if (short && NOSCRIPT_JS_MESSAGE.test(stats.noscriptText)) {
    return verdict(`<noscript> asks for JavaScript and only ${stats.textLength} chars of text`);
  }
  const refresh = META_REFRESH.exec(html);
  if (refresh && Number(refresh[1]) <= 5 && stats.textLength < minText) {
    return verdict(`meta refresh to ${refresh[3].trim() || 'itself'} on an almost empty page`);
  }
  if (stats.scriptCount > 0 && stats.textLength < minText) {
    return verdict(`only ${stats.textLength} chars of visible text with ${stats.scriptCount} script(s)`);
  }
  // Lots of code, little text: typical of client-rendered pages that ship a skeleton only.
  if (short && stats.scriptWeight > 50_000 && stats.textLength * 50 < stats.scriptWeight) {
    return verdict(`text (${stats.textLength} chars) is tiny next to script code (${stats.scriptWeight} bytes)`);
  }
  return { needsJs: false, stats: pick(stats) };
}

function pick(s: PageStats): JsVerdict['stats'] {
  return { textLength: s.textLength, scriptWeight: s.scriptWeight, scriptCount: s.scriptCount };
}
