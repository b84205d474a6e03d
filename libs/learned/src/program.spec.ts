import { parsePage } from './dom';
import { applySteps, checkProgram, makeProgram, runProgram, type FieldRule } from './program';
import type { LearnableField } from './values';

const page = parsePage(
  'http://shop.fixture.test/books/1',
  `<html><head><meta property="og:title" content="Salt Roads"></head><body>
  <h1 class="t">Salt Roads <span>(Paperback)</span></h1>
  <ul class="d"><li><strong>ISBN-13</strong>: 9781916042131</li><li><strong>Published</strong>: March 3, 2024</li></ul>
  <dl><dt>Price</dt><dd>$1,299.50</dd><dt>Pages</dt><dd>312</dd></dl>
  <p class="who">by <a href="/a/ada">Ada Quist</a>, <a href="/a/bram">Bram Vance</a></p>
  <a class="cover" href="/covers/1.jpg">cover</a>
  <div class="meta">Tidewater Press / 2024 / Paperback</div>
  </body></html>`,
);

const field = (name: string, kind: LearnableField['kind'], list = false): LearnableField => ({
  name,
  kind,
  list,
  nullable: true,
  required: false,
});
const rule = (r: Partial<FieldRule> & Pick<FieldRule, 'field' | 'selector'>): FieldRule => ({
  pick: 'first',
  source: { kind: 'text' },
  steps: [],
  parse: 'string',
  ...r,
});

describe('runProgram', () => {
  it('runs every declared source, step and parser', () => {
    const fields = [
      field('title', 'string'),
      field('og', 'string'),
      field('isbn', 'string'),
      field('published', 'date'),
      field('price', 'number'),
      field('pages', 'integer'),
      field('authors', 'string', true),
      field('cover', 'url'),
      field('publisher', 'string'),
      field('year', 'integer'),
      field('missing', 'string'),
      field('none', 'string', true),
    ];
    const program = makeProgram([
      rule({ field: 'title', selector: 'h1.t', source: { kind: 'own-text' } }),
      rule({ field: 'og', selector: 'meta[property="og:title"]', source: { kind: 'attr', name: 'content' } }),
      rule({ field: 'isbn', selector: 'li', source: { kind: 'after-label', label: 'ISBN-13' } }),
      rule({ field: 'published', selector: 'li', source: { kind: 'after-label', label: 'Published' }, parse: 'date' }),
      rule({ field: 'price', selector: 'dt:contains("Price") + dd', parse: 'number' }),
      rule({ field: 'pages', selector: 'dt:contains("Pages") + dd', parse: 'integer' }),
      rule({ field: 'authors', selector: 'p.who > a', pick: 'all' }),
      rule({ field: 'cover', selector: 'a.cover', source: { kind: 'attr', name: 'href' }, parse: 'url' }),
      rule({ field: 'publisher', selector: 'div.meta', steps: [{ op: 'split', separator: ' / ', index: 0 }] }),
      rule({ field: 'year', selector: 'div.meta', steps: [{ op: 'split', separator: ' / ', index: 1 }], parse: 'integer' }),
      rule({ field: 'missing', selector: 'h6' }),
      rule({ field: 'none', selector: 'h6', pick: 'all' }),
    ]);
    expect(runProgram(program, page, fields)).toEqual({
      title: 'Salt Roads',
      og: 'Salt Roads',
      isbn: '9781916042131',
      published: '2024-03-03',
      price: 1299.5,
      pages: 312,
      authors: ['Ada Quist', 'Bram Vance'],
      cover: 'http://shop.fixture.test/covers/1.jpg',
      publisher: 'Tidewater Press',
      year: 2024,
      missing: null,
      none: [],
    });
  });

  it('gives null for a field without a rule and a value that does not parse', () => {
    const program = makeProgram([rule({ field: 'price', selector: 'h1.t', parse: 'number' })]);
    expect(runProgram(program, page, [field('price', 'number'), field('other', 'string')])).toEqual({ price: null, other: null });
  });
});

describe('applySteps', () => {
  it('strips only a prefix or suffix that is there, and splits into items', () => {
    expect(applySteps(' by  Ada Quist ', [{ op: 'strip-prefix', value: 'by ' }])).toEqual(['Ada Quist']);
    expect(applySteps('Ada Quist', [{ op: 'strip-prefix', value: 'by ' }])).toEqual([]);
    expect(applySteps('A; B;  C', [{ op: 'split', separator: '; ' }])).toEqual(['A', 'B', 'C']);
    expect(applySteps('A / B / C', [{ op: 'split', separator: ' / ', index: -1 }])).toEqual(['C']);
    expect(applySteps('Title - Shop', [{ op: 'strip-suffix', value: ' - Shop' }])).toEqual(['Title']);
  });
});

describe('checkProgram', () => {
  it('accepts a learned program and names what is wrong with a tampered one', () => {
    const program = makeProgram([rule({ field: 'title', selector: 'h1' })]);
    expect(checkProgram(program)).toEqual([]);
    expect(checkProgram({ ...program, rules: [rule({ field: 'title', selector: 'h1[' })] })).toEqual([
      'title: selector "h1[" is not valid CSS',
      'program id does not match its rules',
    ]);
    const labelled = makeProgram([rule({ field: 'author', selector: 'a', parentLabel: '' })]);
    expect(checkProgram(labelled)).toEqual(['author: parentLabel must be a text of 1 to 60 characters']);
    expect(checkProgram(makeProgram([rule({ field: 'author', selector: 'a', parentLabel: 'By:' })]))).toEqual([]);
  });

  it('keeps a rule with a parent label to the elements whose parent starts with that text', () => {
    const labelled = parsePage(
      'http://shop.fixture.test/books/2',
      `<html><body><div class="c">Edited By: <a>Emil Sallis</a></div><div class="c">By: <a>Fenna Marlow</a>, <a>Goran Yarrow</a></div></body></html>`,
    );
    const authors = field('authors', 'string', true);
    const by = rule({ field: 'authors', selector: 'div.c > a', pick: 'all', parentLabel: 'By:' });
    expect(runProgram(makeProgram([by]), labelled, [authors])).toEqual({ authors: ['Fenna Marlow', 'Goran Yarrow'] });
    expect(runProgram(makeProgram([{ ...by, pick: 'first' }]), labelled, [field('authors', 'string')])).toEqual({
      authors: 'Fenna Marlow',
    });
    expect(runProgram(makeProgram([{ ...by, parentLabel: undefined }]), labelled, [authors]).authors).toHaveLength(3);
    expect(runProgram(makeProgram([{ ...by, parentLabel: 'Illustrated By:' }]), labelled, [authors])).toEqual({ authors: [] });
  });
});
