import { pdfToText, type PdfTextItem } from './pdf-layout';

const item = (str: string, y: number, fontSize = 11, x = 72, hasEOL = false): PdfTextItem => ({
  str,
  x,
  y,
  width: str.length * fontSize * 0.5,
  fontSize,
  hasEOL,
});

describe('pdfToText', () => {
  const page1 = [
    item('Annual Report', 740, 22),
    item('Introduction', 700, 15),
    item('The first line of a para-', 680),
    item('graph goes on here.', 664),
    item('A new paragraph after a gap.', 620),
    item('• bullet one', 600),
    item('2) numbered', 584),
  ];
  const page2 = [item('Results', 740, 15), item('Revenue', 720), item('grew.', 720, 11, 72 + 7 * 5.5 + 4)];

  it('makes headings from larger fonts (ranked), paragraphs from close lines, lists, and marks pages', () => {
    expect(pdfToText([page1, page2], [], 'markdown')).toBe(
      [
        '<!-- page 1 -->',
        '# Annual Report',
        '## Introduction',
        'The first line of a paragraph goes on here.',
        'A new paragraph after a gap.',
        '- bullet one',
        '2) numbered',
        '<!-- page 2 -->',
        '## Results',
        'Revenue grew.',
      ].join('\n\n'),
    );
  });

  it('text has the same words without markup or page marks', () => {
    const text = pdfToText([page1, page2], [], 'text');
    expect(text).not.toMatch(/#|<!--/);
    expect(text).toContain('Annual Report\n\nIntroduction');
    expect(text).toContain('• bullet one');
  });

  it('an outline title in body size is a heading; a single page has no page mark', () => {
    const md = pdfToText([[item('Scope', 700), item('Body text of the scope.', 684)]], ['Scope'], 'markdown');
    expect(md).toBe('## Scope\n\nBody text of the scope.');
  });

  it('ends a line at PDF.js end-of-line marks and joins runs of one line with spaces', () => {
    const md = pdfToText([[item('left', 700, 11, 72, true), item('right', 700, 11, 300), item('tail', 700, 11, 330)]], [], 'text');
    expect(md).toBe('left right tail');
  });

  it('an empty document is empty text', () => {
    expect(pdfToText([[]], [], 'markdown')).toBe('');
  });
});
