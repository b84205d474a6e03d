import { pageHeadings, withoutTitleLine } from './content-corpus';

describe('withoutTitleLine (the 181 articles scored without the title Gleaner keeps)', () => {
  const html = '<h1>Rain in the <em>valley</em></h1><p>It rained.</p><h2>What next</h2>';
  const headings = pageHeadings(html);

  it('reads the words of every heading', () => {
    expect([...headings]).toEqual(['rain in the valley', 'what next']);
  });

  it('drops the heading line above the body, in text and in Markdown (a link address aside)', () => {
    const truth = 'It rained all day.';
    expect(withoutTitleLine('Rain in the valley\n\nIt rained all day.', headings, truth)).toBe('\nIt rained all day.');
    expect(withoutTitleLine('# [Rain in the valley](https://x.example/rain)\n\nIt rained all day.', headings, truth)).toBe(
      '\nIt rained all day.',
    );
    expect(withoutTitleLine('NEWS\n\n## Rain in the valley\n\nIt rained all day.', headings, truth)).toBe('NEWS\n\n\nIt rained all day.');
  });

  it('keeps a heading the truth holds and one below the first line the truth holds', () => {
    expect(withoutTitleLine('Rain in the valley\n\nIt rained.', headings, 'Rain in the valley. It rained.')).toBe(
      'Rain in the valley\n\nIt rained.',
    );
    expect(withoutTitleLine('It rained.\n\nWhat next', headings, 'It rained.')).toBe('It rained.\n\nWhat next');
  });
});
