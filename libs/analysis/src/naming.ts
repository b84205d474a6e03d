import { type Element } from '@app/content';
import { classList } from './dom';

// Layout/utility/state classes say nothing about what an element is.
const GENERIC_CLASS =
  /^(row|col|cols?-.*|columns?|clearfix|cf|container(-fluid)?|wrapper|wrap|inner|outer|items?|block|box|content|contents|body|text-.*|d-.*|flex.*|grid.*|span\d+|is-.*|has-.*|js-.*|active|current|odd|even|first|last|selected|hidden|visible|show|pull-.*|float-.*|[mp][tblrxyse]?-.*|w-.*|h-.*|min-.*|max-.*|bg-.*|border.*|shadow.*|rounded.*|align.*|justify.*|fa|fa-.*|icons?|icon-.*|small|large|medium|left|right|center|clear|group|section|list|list-item|list-unstyled|list-inline|list-group-item|(xs|sm|md|lg|xl|xxl)(-.*)?|card-body|card|panel|media|mb\d*|mt\d*|unstyled|inline|relative|absolute|overflow-.*|position-.*|font-.*|lead|well|odd-row|even-row|ng-.*|v-.*|css-.*|sc-.*|jsx-\d+)$/i;

/** A class name that may be used in a CSS selector without escaping. */
export function isSelectableClass(cls: string): boolean {
  return /^-?[A-Za-z_][\w-]*$/.test(cls);
}

export function isGenericClass(cls: string): boolean {
  // Also hashed CSS-module / CSS-in-JS names ("evys1bk0", "Card_root__3x9Fz").
  return GENERIC_CLASS.test(cls) || /\d{3,}|[A-Z].*\d.*[A-Z]|^[a-z]{1,2}$|[a-z]\d+[a-z]|\d[a-z]+\d/i.test(cls);
}

/** snake_case identifier; '' when nothing usable is left. */
export function toSnake(raw: string): string {
  const snake = raw
    .replace(/__.*$/, '') // BEM: keep the block name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/_+/g, '_');
  const trimmed = snake.replace(/^(c|js|ui|u|l|o|m)_/, '');
  if (!trimmed || /^\d/.test(trimmed)) return '';
  return trimmed.length > 40 ? trimmed.slice(0, 40).replace(/_+$/, '') : trimmed;
}

/** The most telling class of an element, snake_cased ('' when all classes are layout noise). */
export function meaningfulClassName(el: Element): string {
  const classes = classList(el).filter((c) => !isGenericClass(c));
  // Prefer the longest: "product-card" says more than "card".
  classes.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  for (const c of classes) {
    const name = toSnake(c);
    if (name) return name;
  }
  return '';
}

export function itemTypeName(el: Element): string {
  const itemtype = el.attribs.itemtype;
  if (!itemtype) return '';
  const last = itemtype.trim().split(/\s+/)[0].split(/[/#]/).pop() ?? '';
  return toSnake(last);
}

export function pluralize(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

export function singularize(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/s$/.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}

/** First non-numeric path segment of a URL, snake_cased and singular ("/authors/x/" → "author"). */
export function pathSectionName(url: string): string {
  try {
    for (const seg of new URL(url).pathname.split('/')) {
      if (!seg || /^\d+$/.test(seg)) continue;
      const name = toSnake(decodeURIComponent(seg).replace(/\.[a-z0-9]+$/i, ''));
      return name ? singularize(name) : '';
    }
  } catch {
    /* not a URL */
  }
  return '';
}
