import type { Element } from './dom';

/** Elements never shown as text (or only chrome around forms). */
export const NON_CONTENT_TAGS = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'canvas',
  'link',
  'meta',
  'base',
  'title',
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

/** Hidden by the `hidden` attribute, `aria-hidden="true"` or an inline style. */
export function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined) return true;
  if (a['aria-hidden'] === 'true') return true;
  const style = a.style;
  return style !== undefined && style.length >= 12 && HIDDEN_STYLE.test(style);
}
