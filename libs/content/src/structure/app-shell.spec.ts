import { findFirst, parseHtml } from '../dom';
import { isAppShell } from './app-shell';

const skipsNoscript = (el: { name: string }) => el.name === 'noscript' || el.name === 'script';
const shell = (html: string) => isAppShell(findFirst(parseHtml(html), 'body')!, skipsNoscript);
const post = (n: number) => `<p>${'A reply in the thread that the crawler view holds. '.repeat(n)}</p>`;

describe('isAppShell: a loading screen whose content is in <noscript>', () => {
  it('is a shell when the body shows a few words and its noscript holds the page', () => {
    expect(shell(`<body><div id="splash">Loading…</div><noscript><div class="topic">${post(10)}</div></noscript></body>`)).toBe(true);
  });

  it('is no shell when the body has its own text, or the noscript only asks for scripts', () => {
    expect(shell(`<body><article>${post(30)}</article><noscript>${post(40)}</noscript></body>`)).toBe(false);
    expect(shell(`<body><main>${post(3)}</main><noscript>Please enable JavaScript.</noscript></body>`)).toBe(false);
  });
});
