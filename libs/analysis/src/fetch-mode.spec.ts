import { cloudflareWall, jsPage, quotesPage } from '../../../test/fixtures/site/render';
import { quotesForPage } from '../../../test/fixtures/site/quotes-data';
import { recommendFetchMode } from './fetch-mode';

const listHtml = quotesPage('Quotes to Scrape', quotesForPage(1), '', 1, true);

describe('recommendFetchMode', () => {
  it('the JavaScript variant (empty shell statically, quotes when rendered) is dynamic', () => {
    const v = recommendFetchMode({ html: jsPage(1, undefined) }, { html: listHtml });
    expect(v.mode).toBe('dynamic');
    expect(v.staticTextChars).toBe(0); // scripts and noscript are not visible text
    expect(v.renderedTextChars).toBeGreaterThan(1000);
  });

  it('the same page statically and rendered is static', () => {
    const v = recommendFetchMode({ html: listHtml }, { html: listHtml });
    expect(v).toMatchObject({ mode: 'static' });
    expect(v.staticTextChars).toBe(v.renderedTextChars);
  });

  it('repeated records that exist only after rendering make it dynamic even when text totals are close', () => {
    const filler = `<p>${'Static intro text that is the same in both copies. '.repeat(40)}</p>`;
    const staticHtml = `<html><body>${filler}<div id="list"></div></body></html>`;
    const items = Array.from(
      { length: 6 },
      (_, i) => `<div class="result"><a href="/r/${i}">Result ${i}</a> <span class="snippet">snippet ${i}</span></div>`,
    ).join('');
    const v = recommendFetchMode({ html: staticHtml }, { html: `<html><body>${filler}<div id="list">${items}</div></body></html>` });
    expect(v.mode).toBe('dynamic');
    expect(v.reason).toMatch(/only after rendering/);
  });

  it('a blocked static fetch or a bot-wall page means dynamic; other failures are auto', () => {
    expect(recommendFetchMode(null, null, 'blocked: cloudflare challenge (HTTP 403)').mode).toBe('dynamic');
    expect(recommendFetchMode({ html: cloudflareWall(true) }, null).mode).toBe('dynamic');
    expect(recommendFetchMode(null, { html: listHtml }, 'timeout after 30000 ms').mode).toBe('auto');
    expect(recommendFetchMode(null, null).mode).toBe('auto');
  });

  it('without a rendered copy: an app shell is dynamic, a normal page is auto', () => {
    expect(recommendFetchMode({ html: jsPage(1, undefined) }, null).mode).toBe('dynamic');
    expect(recommendFetchMode({ html: listHtml }, null).mode).toBe('auto');
  });

  it('somewhat more rendered text (between the thresholds) is auto', () => {
    const base = 'word '.repeat(400);
    const v = recommendFetchMode({ html: `<p>${base}</p>` }, { html: `<p>${base}</p><p>${'more '.repeat(110)}</p>` });
    expect(v.mode).toBe('auto');
  });

  it('empty pages do not throw', () => {
    expect(recommendFetchMode({ html: '' }, { html: '' }).mode).toBe('static');
  });
});
