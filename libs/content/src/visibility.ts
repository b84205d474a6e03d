import type { Element } from 'domhandler';

/**
 * Elements a browser never renders as page text: what its default stylesheet hides (`head`, `title`,
 * `meta`, `link`, `base`, `script`, `style`, `template`), `noscript` with scripts on, and the
 * fallback content of embeds and SVG.
 */
export const UNRENDERED_TAGS: ReadonlySet<string> = new Set([
  'head',
  'title',
  'meta',
  'link',
  'base',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'object',
]);

/** Elements never shown as text (or only chrome around forms): conversion drops them in every mode. */
export const NON_CONTENT_TAGS: ReadonlySet<string> = new Set([
  ...UNRENDERED_TAGS,
  'math',
  'frame',
  'frameset',
  'embed',
  'canvas',
  'map',
  'area',
  'audio',
  'video',
  'source',
  'track',
  'button',
  'input',
  'select',
  'option',
  'optgroup',
  'textarea',
  'datalist',
  'dialog',
  'param',
  'applet',
]);

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/**
 * Hidden by the `hidden` attribute, `aria-hidden="true"` or an inline style. `aria-hidden` text is
 * usually on screen, but it marks decorative copies (icon glyphs, a price split into spans next to its
 * readable twin): dropping it keeps one copy of each value, the one the model reads too.
 */
export function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined) return true;
  if (a['aria-hidden'] === 'true') return true;
  const style = a.style;
  return style !== undefined && style.length >= 12 && HIDDEN_STYLE.test(style);
}

/** Whose text a reader of the page never sees: the rule of every "visible text" in the code base. */
export function isInvisible(el: Element): boolean {
  return UNRENDERED_TAGS.has(el.name) || isHidden(el);
}
