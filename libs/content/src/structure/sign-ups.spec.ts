import { findFirst, parseHtml, type Element } from '../dom';
import { signUps } from './sign-ups';
import { textCensus } from './text-census';

const PROSE = `<p>${'The article says what it has to say, at length. '.repeat(12)}</p>`;

/** The class (or tag) of each block left out of the body. */
const out = (html: string, removed: (el: Element) => boolean = () => false): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  const counts = textCensus(body, () => false);
  return [...signUps([body], counts, () => false, removed)].map((el) => el.attribs.class ?? el.name);
};

describe('sign-ups: what a page asks of its reader inside its content', () => {
  it('leaves out a short block named a call to action or a sign-up', () => {
    expect(
      out(
        `<body><article>${PROSE}<div class="post-cta"><h4>Want more jobs?</h4><a href="/demo">Book a demo</a></div>${PROSE}` +
          `<div class="newsletter-box">Get the newsletter</div></article></body>`,
      ),
    ).toEqual(['post-cta', 'newsletter-box']);
  });

  it('keeps a long block named so, a row of cards sharing the name, a section named so, and names that only contain the word', () => {
    expect(out(`<body><div class="cta">${PROSE}</div></body>`)).toEqual([]);
    const card = (n: number) => `<div class="cta-card"><h3>Plan ${n}</h3><p>What plan ${n} gives you.</p><a href="/p">Start</a></div>`;
    expect(out(`<body>${PROSE}<div class="cards">${card(1)}${card(2)}${card(3)}</div></body>`)).toEqual([]);
    expect(out(`<body>${PROSE}<section class="cta-section"><h2>Ready?</h2><p>Talk to us.</p></section></body>`)).toEqual([]);
    expect(out(`<body>${PROSE}<div class="actavista">Some words</div><div class="subscribers-count">9 readers</div></body>`)).toEqual([]);
  });

  it('leaves out a form asking only for an email address, with its heading and pitch, also when the cleaning took the form out', () => {
    const box =
      '<div class="box"><h3>Discover more</h3><p>Subscribe to get the latest posts.</p>' +
      '<form><input type="email" name="email"><input type="hidden" name="id" value="1"><button>Subscribe</button></form></div>';
    expect(out(`<body><article>${PROSE}${box}</article></body>`)).toEqual(['box']);
    expect(out(`<body><article>${PROSE}${box}</article></body>`, (el) => el.name === 'form')).toEqual(['box']);
  });

  it('keeps a comment or contact form (a message field), and climbs neither into the prose nor past the title', () => {
    expect(out(`<body>${PROSE}<form><input name="email"><textarea name="comment"></textarea></form></body>`)).toEqual([]);
    expect(out(`<body><div class="hero"><h1>Our service</h1><form><input type="email"></form></div>${PROSE}</body>`)).toEqual(['form']);
    expect(out(`<body><article>${PROSE}<form><input placeholder="Your e-mail"></form></article></body>`)).toEqual(['form']);
  });
});
