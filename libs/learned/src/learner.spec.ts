import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePage } from './dom';
import { learnProgram, learnRule, hrefTokens, type LearningSample } from './learner';
import { runFieldRule, runProgram } from './program';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../test/fixtures/learned-shop';
import { disagreeingFields, planFields, type LearnableField } from './values';

const fields = planFields(BOOK_SCHEMA).fields;

function sample(n: number, variant: 'classic' | 'drifted' = 'classic'): LearningSample {
  const b = book(n);
  return { page: parsePage(productUrl(b), productPage(b, variant)), output: truth(b) };
}

describe('learnProgram', () => {
  it('learns a rule per field from three pages that reproduces the model on 40 further pages', () => {
    const result = learnProgram(
      fields,
      [1, 2, 3].map((n) => sample(n)),
    );
    expect(result.failures).toEqual([]);
    const program = result.program!;
    expect(program.id).toMatch(/^prg_[0-9a-f]{16}$/);
    expect(program.rules.map((r) => r.field).sort()).toEqual(fields.map((f) => f.name).sort());
    for (let n = 4; n < 44; n++) {
      const s = sample(n);
      expect({ n, disagree: disagreeingFields(fields, runProgram(program, s.page, fields), s.output) }).toEqual({ n, disagree: [] });
    }
  });

  it('declares the transform each field needs: labels, lists, own text, number, date and URL parsing', () => {
    const program = learnProgram(
      fields,
      [1, 2, 3].map((n) => sample(n)),
    ).program!;
    const rule = (name: string) => program.rules.find((r) => r.field === name)!;
    expect(rule('isbn_13').source).toEqual({ kind: 'after-label', label: 'ISBN-13:' });
    expect(rule('publisher').source).toEqual({ kind: 'after-label', label: 'Publisher:' });
    expect(rule('published')).toMatchObject({ source: { kind: 'after-label', label: 'Published:' }, parse: 'date' });
    expect(rule('authors')).toMatchObject({ pick: 'all', source: { kind: 'text' } });
    expect(rule('price')).toMatchObject({ parse: 'number' });
    expect(rule('cover')).toMatchObject({ source: { kind: 'attr', name: 'href' }, parse: 'url' });
    // The <h1> holds "(Hardcover)" in a span: the title is the heading's own text, or the og:title meta.
    expect(['own-text', 'attr']).toContain(rule('title').source.kind);
    const page = sample(30).page;
    expect(runProgram(program, page, fields)).toEqual(truth(book(30)));
  });

  it('needs the program to fit every learning page, not just the first', () => {
    // Page 5 has three authors, page 3 two, page 1 one: a rule that reads one author element fits page 1 only.
    const program = learnProgram(
      fields,
      [1, 3, 5].map((n) => sample(n)),
    ).program!;
    for (const n of [1, 3, 5]) expect(runProgram(program, sample(n).page, fields).authors).toEqual(book(n).authors);
  });

  it("fails when no rule gives the model's null on one page and its values on the others", () => {
    const samples = [1, 2, 3].map((n) => sample(n));
    samples[1].output = { ...samples[1].output, publisher: null };
    const result = learnProgram(fields, samples);
    // The page does show a publisher, so no rule can both read it on pages 1 and 3 and give null on page 2.
    expect(result.program).toBeUndefined();
    expect(result.failures).toEqual([
      { field: 'publisher', reason: expect.stringMatching(/none of \d+ candidate rules reproduces every learning page/) },
    ]);
  });

  it('takes the best rule that misses one page when allowed one outlier and at least three pages agree; never two', () => {
    const samples = [1, 2, 3, 4].map((n) => sample(n));
    samples[1].output = { ...samples[1].output, publisher: 'Somebody Else' }; // a value page 2 does not show
    const publisher = fields.find((f) => f.name === 'publisher')!;
    expect(learnRule(publisher, samples)).toMatchObject({ failure: expect.stringMatching(/none of \d+ candidate rules/) });
    const tolerant = learnRule(publisher, samples, 1);
    expect(tolerant).toMatchObject({ rule: { source: { kind: 'after-label', label: 'Publisher:' } }, missed: 1 });
    // Three pages are too few to tell an outlier from a rule that is wrong: one must still fit them all.
    expect(learnRule(publisher, samples.slice(0, 3), 1).failure).toBeDefined();
    samples[2].output = { ...samples[2].output, publisher: 'Another One' };
    expect(learnRule(publisher, samples, 1).failure).toBeDefined();
  });

  it('says which field it could not find on the page', () => {
    const samples = [1, 2, 3].map((n) => sample(n));
    samples[0].output = { ...samples[0].output, isbn_13: '9780000000000' };
    expect(learnProgram(fields, samples).failures).toEqual([{ field: 'isbn_13', reason: expect.any(String) }]);
  });

  it('leaves a field the model never filled without a rule (it extracts as null)', () => {
    const samples = [1, 2, 3].map((n) => sample(n));
    for (const s of samples) s.output = { ...s.output, price: null };
    const program = learnProgram(fields, samples).program!;
    expect(program.rules.some((r) => r.field === 'price')).toBe(false);
    expect(runProgram(program, sample(7).page, fields).price).toBeNull();
  });

  it('learns from the vendored bookshop pages of the analysis specs and applies to the other page of the template', () => {
    const dir = join(__dirname, '../../../test/fixtures/book-pages');
    const load = (file: string) => parsePage(`http://fixture.test/${file}`, readFileSync(join(dir, file), 'utf8'));
    const textFields: LearnableField[] = [{ name: 'isbn_13', kind: 'string', list: false, nullable: true, required: true }];
    const isbnOf = (file: string) => /ISBN-13[\s\S]{0,40}?(97[89]\d{10})/.exec(readFileSync(join(dir, file), 'utf8'))?.[1];
    for (const [learnFrom, applyTo] of [
      ['riverbend-salt-roads.html', 'riverbend-lantern-keepers-daughter.html'],
      ['harborlane-clockmakers-apprentice.html', 'harborlane-field-guide-quiet-rivers.html'],
    ]) {
      const learnIsbn = isbnOf(learnFrom);
      const applyIsbn = isbnOf(applyTo);
      expect([learnIsbn, applyIsbn]).toEqual([expect.any(String), expect.any(String)]);
      const program = learnProgram(textFields, [{ page: load(learnFrom), output: { isbn_13: learnIsbn } }]).program!;
      expect(runProgram(program, load(applyTo), textFields)).toEqual({ isbn_13: applyIsbn });
    }
  });

  it('reads list items held in one element ("A; B; C") with a split step', () => {
    const html = (names: string[]) =>
      `<html><body><div class="card"><h1>T</h1><p class="who">Written by ${names.join('; ')}</p></div></body></html>`;
    const listField: LearnableField[] = [{ name: 'authors', kind: 'string', list: true, nullable: false, required: true }];
    const data = [
      ['Ada Quist', 'Bram Vance'],
      ['Cleo Thorne', 'Dara Sallis', 'Emil Marlow'],
    ];
    const program = learnProgram(
      listField,
      data.map((names, i) => ({ page: parsePage(`http://x.test/${i}`, html(names)), output: { authors: names } })),
    ).program!;
    expect(program.rules[0].steps).toEqual([
      { op: 'strip-prefix', value: 'Written by ' },
      { op: 'split', separator: '; ' },
    ]);
    expect(runProgram(program, parsePage('http://x.test/9', html(['Fenna Yarrow'])), listField)).toEqual({ authors: ['Fenna Yarrow'] });
  });
});

describe('hrefTokens', () => {
  it('names query keys and the first path segment, never numbers', () => {
    expect(hrefTokens('/search?author=Ada%20Quist&detailed=1')).toEqual(['author=', 'detailed=', '/search/']);
    expect(hrefTokens('/123456/x')).toEqual([]);
    expect(hrefTokens(undefined)).toEqual([]);
  });
});

describe('learnRule: authors told from editors by the label of their line', () => {
  // Pages of one template: an author line `By:`, on some pages an editor line or an illustrator line before or
  // after it with the same markup (the model reads the authors of the `By:` line only).
  const page = (n: number, lines: Array<[string, string[]]>) =>
    parsePage(
      `http://shop.fixture.test/books/${n}`,
      `<html><body><div id="details"><h1>Book ${n}</h1>${lines
        .map(
          ([label, names]) =>
            `<div class="contributor">${label} ${names.map((a) => `<a href="/search?author=${a}">${a}</a>`).join(', ')}</div>`,
        )
        .join('\n')}<div class="more">More in <a href="/series/${n}">Series ${n}</a></div></div></body></html>`,
    );
  const pages: Array<{ n: number; lines: Array<[string, string[]]>; authors: string[] }> = [
    { n: 1, lines: [['By:', ['Ada Quist']]], authors: ['Ada Quist'] },
    { n: 2, lines: [['By:', ['Bram Vance', 'Cleo Thorne']]], authors: ['Bram Vance', 'Cleo Thorne'] },
    { n: 3, lines: [['By:', ['Dara Wexley']]], authors: ['Dara Wexley'] },
    {
      n: 4,
      lines: [
        ['Edited By:', ['Emil Sallis']],
        ['By:', ['Fenna Marlow', 'Goran Yarrow']],
      ],
      authors: ['Fenna Marlow', 'Goran Yarrow'],
    },
    {
      n: 5,
      lines: [
        ['By:', ['Hild Penhallow']],
        ['Illustrated By:', ['Ines Underhay']],
      ],
      authors: ['Hild Penhallow'],
    },
  ];
  const list: LearnableField = { name: 'author', kind: 'string', list: true, nullable: true, required: true };
  const first: LearnableField = { name: 'author', kind: 'string', list: false, nullable: true, required: true };

  it('learns the `By:` line from pages that have only it, and the rule holds on pages with editors and illustrators', () => {
    const samples = pages.slice(0, 3).map((p) => ({ page: page(p.n, p.lines), output: { author: p.authors } }));
    const { rule } = learnRule(list, samples);
    expect(rule).toMatchObject({ selector: 'div.contributor > a', pick: 'all', parentLabel: 'By:' });
    for (const p of pages) expect(runFieldRule(rule!, page(p.n, p.lines), list)).toEqual(p.authors);
  });

  it('learns the first author as a string field the same way', () => {
    const samples = pages.slice(0, 3).map((p) => ({ page: page(p.n, p.lines), output: { author: p.authors[0] } }));
    const { rule } = learnRule(first, samples);
    expect(rule).toMatchObject({ pick: 'first', parentLabel: 'By:' });
    for (const p of pages) expect(runFieldRule(rule!, page(p.n, p.lines), first)).toBe(p.authors[0]);
  });

  it('drops the label when the pages do not share it', () => {
    const samples = [
      { page: page(1, [['By:', ['Ada Quist']]]), output: { author: ['Ada Quist'] } },
      { page: page(2, [['Written by', ['Bram Vance']]]), output: { author: ['Bram Vance'] } },
    ];
    const { rule } = learnRule(list, samples);
    expect(rule).toBeDefined();
    expect(rule!.parentLabel).toBeUndefined();
  });

  it('answers "always empty" (null) for a field the model never filled, and fails without pages that answer for the field', () => {
    const samples = pages.slice(0, 3).map((p) => ({ page: page(p.n, p.lines), output: { author: [] } }));
    expect(learnRule(list, samples)).toEqual({ rule: null, candidates: 0 });
    // A partial call for another field says nothing about this one.
    const others = pages.slice(0, 3).map((p) => ({ page: page(p.n, p.lines), output: { title: 'x' }, fields: ['title'] }));
    expect(learnRule(list, others)).toEqual({ failure: 'no learning pages', candidates: 0 });
  });
});
