import { selectAll } from 'css-select';
import { visibleText, walk } from '@app/content';
import { parsePageDom, type PageDom } from './dom';
import { detectRepeatedInDom } from './repeated-elements';
import type { DetectedElement, FetchModeVerdict } from './types';

/** Rendered text must exceed static text by both this factor and this many characters to call a page dynamic. */
export const DYNAMIC_RATIO = 1.5;
export const DYNAMIC_MIN_EXTRA_CHARS = 500;
/** Within this relative (or absolute) difference the two copies are "the same page". */
export const STATIC_MAX_RATIO = 1.2;
export const STATIC_MAX_EXTRA_CHARS = 200;
/** A static page with less visible text than this and an empty app mount point is a JavaScript shell. */
export const SHELL_MAX_CHARS = 200;

const BLOCKED_ERROR =
  /\b(block(ed)?|bot[- ]?wall|captcha|challenge|forbidden|denied|403|429|cloudflare|datadome|perimeterx|akamai|incapsula|imperva|waf)\b/i;
const WALL_MARKERS =
  /_cf_chl_opt|\/cdn-cgi\/challenge-platform\/|<title>\s*(Just a moment\.\.\.|Attention Required! \| Cloudflare)|captcha-delivery\.com|px-captcha|_Incapsula_Resource|awsWafCookieDomainList|KPSDK\.configure/i;
const MOUNT_IDS = /^(app|root|__next|___gatsby|__nuxt|svelte|main-app|application)$/i;

/** Compares the visible text (scripts, styles, noscript removed) of the static and the browser-rendered HTML. */
export function recommendFetchMode(
  staticPage: { html: string } | null,
  rendered: { html: string } | null,
  staticError?: string,
): FetchModeVerdict {
  return recommendFetchModeFromDoms(
    staticPage ? { dom: parsePageDom(staticPage.html), html: staticPage.html } : null,
    rendered ? parsePageDom(rendered.html) : null,
    staticError,
  );
}

export function recommendFetchModeFromDoms(
  staticPage: { dom: PageDom; html: string } | null,
  rendered: PageDom | null,
  staticError?: string,
  renderedRepeated?: DetectedElement[],
): FetchModeVerdict {
  const s = staticPage?.dom.totalText ?? 0;
  const r = rendered?.totalText ?? 0;
  const verdict = (mode: FetchModeVerdict['mode'], reason: string): FetchModeVerdict => ({
    mode,
    reason,
    staticTextChars: s,
    renderedTextChars: r,
  });

  if (!staticPage) {
    if (staticError && BLOCKED_ERROR.test(staticError))
      return verdict('dynamic', `static fetch was blocked (${staticError.slice(0, 120)})`);
    if (staticError) return verdict('auto', `static fetch failed (${staticError.slice(0, 120)}); not a block, so no clear preference`);
    return verdict('auto', 'no static copy to compare');
  }
  if (WALL_MARKERS.test(staticPage.html.slice(0, 262_144))) return verdict('dynamic', 'the static response is a bot-wall challenge page');
  if (!rendered) {
    if (s < SHELL_MAX_CHARS && hasEmptyMount(staticPage.dom))
      return verdict('dynamic', `static HTML is a JavaScript app shell (${s} chars of text, empty mount point)`);
    return verdict('auto', 'no rendered copy to compare');
  }
  if (r > DYNAMIC_RATIO * s && r - s > DYNAMIC_MIN_EXTRA_CHARS) {
    return verdict(
      'dynamic',
      `rendered page has ${r} chars of text vs ${s} static (> ${DYNAMIC_RATIO}× and > ${DYNAMIC_MIN_EXTRA_CHARS} more)`,
    );
  }
  const repeated = renderedRepeated ?? detectRepeatedInDom(rendered, 'http://localhost/');
  const top = repeated.find((e) => e.type !== 'link_list' && e.count >= 3);
  if (top) {
    let inStatic = 0;
    try {
      inStatic = selectAll(top.selector, staticPage.dom.doc).length;
    } catch {
      inStatic = 0;
    }
    if (inStatic < top.count / 2)
      return verdict('dynamic', `repeated ${top.name} ×${top.count} appears only after rendering (${inStatic} in static HTML)`);
  }
  if (r <= STATIC_MAX_RATIO * s || r - s <= STATIC_MAX_EXTRA_CHARS) {
    return verdict('static', `static and rendered text match (${s} vs ${r} chars)`);
  }
  return verdict('auto', `rendered page has somewhat more text (${r} vs ${s} chars); let the fetcher decide per page`);
}

function hasEmptyMount(dom: PageDom): boolean {
  let found = false;
  walk(dom.doc, (el) => {
    if (found) return false;
    if (MOUNT_IDS.test(el.attribs.id ?? '') && (dom.textLen.get(el) ?? 0) === 0) found = true;
    if (el.name === 'noscript' && /javascript/i.test(visibleText(el, 500))) found = true;
    return !found;
  });
  return found;
}
