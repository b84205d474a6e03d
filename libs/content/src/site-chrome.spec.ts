import { findFirst, parseHtml } from './dom';
import { isCookieBanner, isSiteChrome } from './site-chrome';

const el = (attrs: string, text: string) => findFirst(parseHtml(`<body><div ${attrs}><p>${text}</p></div></body>`), 'div')!;
const notice = 'We use cookies to improve your experience. Accept all or manage your choices.';
const manual = 'The http.cookies module defines classes for abstracting the concept of cookies. '.repeat(40);

describe('site chrome: cookie and consent banners', () => {
  it('takes an element named for cookies or consent that holds a notice', () => {
    for (const attrs of ['id="cookie-notice"', 'class="cookieConsent bar"', 'class="consent-banner"']) {
      expect(isSiteChrome(el(attrs, notice))).toBe(true);
      expect(isCookieBanner(el(attrs, notice))).toBe(true);
    }
  });

  it("takes a consent tool's element, or one named a cookie notice, whatever it holds (a preference centre)", () => {
    for (const attrs of ['id="onetrust-consent-sdk"', 'class="CybotCookiebotDialog"', 'class="cc-window"', 'id="modal_cookie-consent"'])
      expect(isCookieBanner(el(attrs, manual))).toBe(true);
  });

  it('leaves a section about cookies that holds the page (a manual page, a recipe collection)', () => {
    for (const attrs of ['id="module-http.cookies"', 'class="cookie-recipes"']) {
      expect(isSiteChrome(el(attrs, manual))).toBe(false);
      expect(isCookieBanner(el(attrs, manual))).toBe(false);
    }
  });
});
