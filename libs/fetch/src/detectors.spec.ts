import { detectBotWall } from './bot-wall-detector';
import { detectNeedsJs } from './js-detector';

const article = `<html><head><title>News</title><script src="/app.js"></script></head><body><main>${'<p>Real article text about something that happened today. </p>'.repeat(40)}</main>
<noscript>Please enable JavaScript for the comments.</noscript></body></html>`;

describe('detectNeedsJs', () => {
  it.each([
    ['React root', '<html><body><div id="root"></div><script src="/static/js/main.js"></script></body></html>', /application root/],
    ['Next root', '<html><body><div id="__next"></div><script src="/_next/x.js"></script></body></html>', /application root/],
    [
      'Vue app with comment',
      '<html><body><div id="app"><!-- app --></div><script src="/app.js"></script></body></html>',
      /application root/,
    ],
    ['Angular', '<html><body><app-root></app-root><script src="main.js"></script></body></html>', /application root/],
    [
      'noscript message',
      '<html><body><noscript>You need to enable JavaScript to run this app.</noscript><div class="shell">Loading</div><script>boot()</script></body></html>',
      /noscript/,
    ],
    ['meta refresh', '<html><head><meta http-equiv="refresh" content="0; url=/app/"></head><body></body></html>', /meta refresh/],
    ['tiny text, scripts', '<html><body><p>Loading…</p><script src="a.js"></script></body></html>', /visible text/],
    [
      'huge bundle',
      `<html><body><p>${'x'.repeat(900)}</p><script>${'var a=1;'.repeat(10000)}</script></body></html>`,
      /tiny next to script/,
    ],
  ])('flags %s', (_name, html, reason) => {
    const v = detectNeedsJs(html);
    expect(v.needsJs).toBe(true);
    expect(v.reason).toMatch(reason);
  });

  it.each([
    ['a server-rendered article with a noscript note', article],
    ['a plain page without scripts', '<html><body><p>Short but static.</p></body></html>'],
    [
      'an SSR app whose root is filled',
      `<html><body><div id="root"><h1>Shop</h1>${'<p>Product description text. </p>'.repeat(30)}</div><script src="/app.js"></script></body></html>`,
    ],
    [
      'JSON-LD is not code',
      `<html><body><p>${'Enough text here. '.repeat(20)}</p><script type="application/ld+json">${'{"a":1}'.repeat(5000)}</script></body></html>`,
    ],
  ])('leaves %s alone', (_name, html) => {
    expect(detectNeedsJs(html).needsJs).toBe(false);
  });
});

describe('detectBotWall', () => {
  it.each([
    [
      'Cloudflare managed challenge',
      '<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>',
      403,
      'cloudflare',
    ],
    [
      'Cloudflare by path',
      '<html><body><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>',
      503,
      'cloudflare',
    ],
    [
      'Cloudflare block page',
      '<html><head><title>Attention Required! | Cloudflare</title></head><body>Sorry, you have been blocked</body></html>',
      403,
      'cloudflare',
    ],
    [
      'DataDome',
      '<html><body><script>var dd={"rt":"c","cid":"x"}</script><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>',
      403,
      'datadome',
    ],
    ['PerimeterX', '<html><body><div id="px-captcha"></div><script>window._pxAppId="PX123"</script></body></html>', 403, 'perimeterx'],
    [
      'Akamai',
      "<html><head><title>Access Denied</title></head><body>You don't have permission. Reference #18.1 https://errors.edgesuite.net/18.1</body></html>",
      403,
      'akamai',
    ],
    [
      'Imperva',
      '<html><body><iframe src="/_Incapsula_Resource?SWUDNSAI=31"></iframe>Request unsuccessful. Incapsula incident ID: 1</body></html>',
      200,
      'imperva',
    ],
    ['captcha on 429', '<html><body><div class="g-recaptcha" data-sitekey="x"></div></body></html>', 429, 'captcha'],
    [
      'captcha-only 200 page',
      '<html><body><h1>Verify you are human</h1><iframe src="https://www.google.com/recaptcha/api2/anchor"></iframe></body></html>',
      200,
      'captcha',
    ],
  ])('detects %s', (_name, html, status, vendor) => {
    const v = detectBotWall(html, status);
    expect(v.blocked).toBe(true);
    expect(v.vendor).toBe(vendor);
  });

  it('detects the cf-mitigated header', () => {
    expect(detectBotWall('<html></html>', 403, { 'cf-mitigated': 'challenge' }).blocked).toBe(true);
  });

  it.each([
    ['a normal article', article, 200],
    [
      'a long page with a contact-form captcha',
      `<html><body>${'<p>Plenty of real content on this page. </p>'.repeat(80)}<div class="g-recaptcha"></div></body></html>`,
      200,
    ],
    ['a plain 404', '<html><body><h1>Not found</h1></body></html>', 404],
    ['a 500', '<html><body>Internal Server Error</body></html>', 500],
  ])('leaves %s alone', (_name, html, status) => {
    expect(detectBotWall(html, status).blocked).toBe(false);
  });
});
