import { groundValue, snippet, type LeafKind } from './ground-value';
import { GroundingIndex, type GroundingSource } from './grounding-index';
import { GROUNDING_LIMITS } from './grounding-limits';

const PAGE = [
  '# The Short Second Life of Bree Tanner',
  '',
  'By **Stephenie Meyer** · [Little, Brown](https://shop.example/publisher/lb)',
  '',
  '| Price | $1,299.00 |',
  '| Published | June 2010 |',
  'ISBN-13: 978-0-316-12558-1 · Call (555) 123-4567',
  'Prix : 1 299,50 € — le 05.03.2024, or March 7th, 2024',
  'Tom &amp; Jerry™ · Ｗｉｄｅ text · Café ﬁne · 東京都',
].join('\n');

const BASE = 'https://shop.example/books/bree';
let index: GroundingIndex;
const at = (value: string | number, kind: LeafKind = 'string', source?: Partial<GroundingSource>) =>
  groundValue(source ? new GroundingIndex({ text: { in: 'page', text: PAGE }, baseUrl: BASE, ...source }) : index, value, kind, BASE);
const grounded = (value: string | number, kind: LeafKind = 'string') => at(value, kind).grounded;

beforeEach(() => {
  index = new GroundingIndex({
    text: { in: 'page', text: PAGE },
    title: 'Bree Tanner - on Shop.example',
    attributes: [
      { name: 'content', value: 'An Eclipse Novella' },
      { name: 'alt', value: 'Front cover' },
      { name: 'datetime', value: '2010-06-05' },
      { name: 'href', value: '/authors/stephenie-meyer' },
      { name: 'src', value: 'https://img.example/bree.jpg' },
      { name: 'data-secret', value: 'hidden words' },
    ],
    baseUrl: BASE,
  });
});

describe('grounding: text', () => {
  it('finds a value whatever its case, whitespace and punctuation', () => {
    expect(grounded('the short  SECOND life')).toBe(true);
    expect(grounded('Stephenie Meyer')).toBe(true);
    expect(grounded('Little Brown')).toBe(true);
  });

  it('needs the words in order, next to each other, whole', () => {
    expect(grounded('Meyer Stephenie')).toBe(false);
    expect(grounded('Short Life')).toBe(false);
    expect(grounded('Tann')).toBe(false);
  });

  it('decodes HTML entities in the value and normalises NFKC on both sides', () => {
    expect(grounded('Tom &amp;amp; Jerry')).toBe(true);
    expect(grounded('Wide TEXT')).toBe(true);
    expect(grounded('Cafe\u0301 fine')).toBe(true);
  });

  it('gives the evidence: a snippet and the offsets in the text the model saw', () => {
    const verdict = at('Stephenie Meyer');
    expect(verdict).toMatchObject({ grounded: true, evidence: { in: 'page' } });
    const evidence = (verdict as { evidence: { start: number; end: number; text: string } }).evidence;
    expect(PAGE.slice(evidence.start, evidence.end)).toBe('Stephenie Meyer');
    expect(evidence.text).toContain('**Stephenie Meyer**');
  });

  it('finds values in the title and in text attributes, not in other attributes or link targets', () => {
    expect(at('on shop.example')).toMatchObject({ grounded: true, evidence: { in: 'title' } });
    expect(at('an eclipse novella')).toMatchObject({ grounded: true, evidence: { in: 'attribute', attribute: 'content' } });
    expect(at('front cover')).toMatchObject({ evidence: { attribute: 'alt' } });
    expect(grounded('hidden words')).toBe(false);
    expect(grounded('publisher lb')).toBe(false);
  });

  it('never matches across two pieces of text (page, title, attributes)', () => {
    expect(grounded('Jerry Wide')).toBe(true); // one piece of text: "Jerry™ · Ｗｉｄｅ"
    expect(grounded('東京都 Bree Tanner')).toBe(false); // the page's last words, then the title's first

    expect(grounded('novella front cover')).toBe(false);
  });

  it('checks CJK values character by character', () => {
    expect(grounded('東京')).toBe(true);
    expect(grounded('京都')).toBe(true);
    expect(grounded('大阪')).toBe(false);
  });
});

describe('grounding: numbers and money', () => {
  it('finds a number written in any of the usual formats, with or without currency', () => {
    expect(grounded(1299, 'number')).toBe(true);
    expect(grounded('$1,299.00')).toBe(true);
    expect(grounded('1299 USD')).toBe(true);
    expect(grounded(1299.5, 'number')).toBe(true);
    expect(grounded('1.299,50 €')).toBe(true);
  });

  it('flags a changed digit', () => {
    expect(grounded(1298, 'number')).toBe(false);
    expect(grounded('$1,399.00')).toBe(false);
  });

  it('lets an integer field round the page number, and only an integer field', () => {
    expect(grounded(1300, 'integer')).toBe(true);
    expect(grounded(1300, 'number')).toBe(false);
    expect(grounded(1301, 'integer')).toBe(false);
  });

  it('finds identifiers written in digit groups', () => {
    expect(grounded('9780316125581')).toBe(true);
    expect(grounded(9780316125581, 'number')).toBe(true);
    expect(grounded('555-123-4567')).toBe(true);
    expect(grounded('9780316125582')).toBe(false);
  });
});

describe('grounding: dates', () => {
  it('finds a date value in any common written form', () => {
    expect(grounded('2024-03-05', 'date')).toBe(true); // 05.03.2024
    expect(grounded('2024-03-07', 'date')).toBe(true); // March 7th, 2024
    expect(grounded('2024-03-07T10:00:00.000Z', 'date-time')).toBe(true);
    expect(grounded('7 March 2024')).toBe(true);
  });

  it('finds the first of a month in a month written with its year, and a datetime attribute', () => {
    expect(grounded('2010-06-01', 'date')).toBe(true);
    expect(grounded('2010-06-02', 'date')).toBe(false);
    expect(grounded('2010-06-05', 'date')).toBe(true);
  });

  it('flags a shifted date', () => {
    expect(grounded('2024-03-08', 'date')).toBe(false);
    expect(grounded('July 2010')).toBe(false);
  });
});

describe('grounding: URLs', () => {
  it('finds URL values among link targets and href/src attributes, resolved against the page', () => {
    expect(at('https://shop.example/publisher/lb/', 'url')).toMatchObject({ grounded: true, evidence: { in: 'page' } });
    expect(at('https://shop.example/authors/stephenie-meyer', 'url')).toMatchObject({ evidence: { in: 'attribute', attribute: 'href' } });
    expect(grounded('/authors/stephenie-meyer', 'url')).toBe(true);
    expect(grounded('https://img.example/bree.jpg')).toBe(true);
    expect(grounded('https://shop.example/publisher/xx', 'url')).toBe(false);
  });
});

describe('grounding: texts of several lines', () => {
  const ARTICLE = [
    '# Saturn moon mapped',
    '',
    'Scientists on Monday unveiled the first global map of Titan.',
    '',
    '![A radar image of Titan](https://img.example/titan.jpg)',
    'Advertisement',
    '',
    'The map shows dunes, lakes and plains, the team said.',
    '',
    'Related: [Europa has water vapour](https://news.example/europa)',
  ].join('\n');
  const body = (text: string) => at(text, 'string', { text: { in: 'page', text: ARTICLE } });

  it('finds each line whole when the page puts something between them, the evidence from the first to the last', () => {
    const value = 'Scientists on Monday unveiled the first global map of Titan.\n\nThe map shows dunes, lakes and plains, the team said.';
    const verdict = body(value);
    expect(verdict).toMatchObject({ grounded: true, evidence: { in: 'page', start: ARTICLE.indexOf('Scientists') } });
    expect(verdict.grounded && verdict.evidence.end).toBe(ARTICLE.indexOf(' the team said.') + ' the team said'.length);
  });

  it('is ungrounded when one line is not on the page (a changed digit, a swapped name)', () => {
    expect(
      body('Scientists on Monday unveiled the first global map of Titan.\nThe map shows dunes, lakes and plains, the crew said.'),
    ).toEqual({
      grounded: false,
    });
    expect(body('Scientists on Tuesday unveiled the first global map of Titan.\nThe map shows dunes, lakes and plains.').grounded).toBe(
      false,
    );
  });

  it('skips lines without words, and takes lines in any order', () => {
    expect(body('The map shows dunes, lakes and plains, the team said.\n___\nScientists on Monday unveiled').grounded).toBe(true);
  });

  it('still wants a one-line value as one run of words: what lies between two paragraphs breaks it', () => {
    expect(body('of Titan. The map shows').grounded).toBe(false);
  });
});

describe('grounding: what it does not judge, and its bounds', () => {
  it('does not check booleans and enum values', () => {
    expect(at('yes', 'unchecked')).toEqual({ grounded: null, reason: 'not_checkable' });
  });

  it('does not check a value without words', () => {
    expect(at('—')).toEqual({ grounded: null, reason: 'not_checkable' });
  });

  it('gives up on values past the length bound', () => {
    expect(at('a'.repeat(GROUNDING_LIMITS.maxValueChars + 1))).toEqual({ grounded: null, reason: 'value_too_long' });
  });

  it('says the script is not supported rather than ungrounded when a Thai value is not found as a word', () => {
    expect(at('สวัสดี')).toEqual({ grounded: null, reason: 'unsupported_script' });
    expect(at('สวัสดี', 'string', { text: { in: 'page', text: 'hello สวัสดี world' } })).toMatchObject({ grounded: true });
  });

  it('says the page was too large when the value may be in the part that was not indexed', () => {
    const limits = { ...GROUNDING_LIMITS, maxIndexedChars: 40 };
    const clipped = new GroundingIndex({ text: { in: 'page', text: PAGE } }, limits);
    expect(groundValue(clipped, 'Bree Tanner', 'string').grounded).toBe(true);
    expect(groundValue(clipped, 'Stephenie Meyer', 'string')).toEqual({ grounded: null, reason: 'page_too_large' });
  });

  it('stops at the page work budget: a hostile value of common words costs at most the budget', () => {
    // Every word of the value is everywhere on the page, and each try fails only at its last word.
    const text = 'a b '.repeat(10_000);
    const limits = { ...GROUNDING_LIMITS, workBudget: 50_000 };
    const hostile = new GroundingIndex({ text: { in: 'page', text } }, limits);
    expect(groundValue(hostile, `${'a b '.repeat(500)}a a`, 'string')).toEqual({ grounded: null, reason: 'budget_exhausted' });
    expect(hostile.budget).toBeLessThanOrEqual(0);
    expect(hostile.budget).toBeGreaterThan(-2_000); // one comparison run past the budget at most
    // Every later value on the page is not checked either: the page's budget is spent.
    expect(groundValue(hostile, 'a', 'string')).toEqual({ grounded: null, reason: 'budget_exhausted' });
  });

  it('remembers verdicts: the same value is searched once per page', () => {
    const before = index.budget;
    at('Stephenie Meyer');
    const spent = before - index.budget;
    at('Stephenie Meyer');
    expect(before - index.budget).toBe(spent);
  });
});

describe('snippet', () => {
  it('shows the match with context, whitespace collapsed, and marks cuts', () => {
    const text = `${'x'.repeat(100)} the match\nhere ${'y'.repeat(100)}`;
    const start = text.indexOf('the match');
    const out = snippet(text, start, start + 'the match'.length);
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(out).toContain('the match here');
  });

  it('cuts long matches and never splits a surrogate pair', () => {
    const text = `${'😀'.repeat(200)}`;
    const out = snippet(text, 0, text.length);
    expect(out.endsWith('…')).toBe(true);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
