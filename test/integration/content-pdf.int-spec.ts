/**
 * PDFs through the content pool's worker threads (unpdf, pure JavaScript): pages, headings from the
 * fonts and the outline, the info dictionary; failures with their categories.
 */
import { ContentPool } from '@app/content';
import { AppError } from '@app/core';
import { makePdf } from '../fixtures/pdf/make-pdf';
import { BROKEN_PDF, LOCKED_PDF, LONG_PDF, REPORT_PDF } from '../fixtures/docs-site/docs-site';

describe('PDF conversion in the content pool', () => {
  let pool: ContentPool;
  beforeAll(() => {
    pool = new ContentPool({ threads: 1, taskTimeoutMs: 20_000 });
  });
  afterAll(() => pool.close());

  const failure = async (pdf: Buffer, maxPages = 100): Promise<AppError> => {
    try {
      await pool.convertPdf({ pdf, url: 'https://docs.test/x.pdf', maxPages });
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected the conversion to fail');
  };

  it('lays out a three-page report as markdown with headings and page marks, and text without them', async () => {
    const result = await pool.convertPdf({ pdf: REPORT_PDF, url: 'https://docs.test/report.pdf', maxPages: 100 });
    expect(result.markdown).toBe(
      [
        '<!-- page 1 -->',
        '# Annual Report 2026',
        '## Introduction',
        'Gleaner turned fifty thousand pages into data this year. This report covers the numbers.',
        '<!-- page 2 -->',
        '## Results',
        'Revenue grew by 12 percent to 4.2 million.',
        '<!-- page 3 -->',
        '## Outlook',
        'Next year brings PDFs to every crawl.',
      ].join('\n\n'),
    );
    expect(result.text).toContain('Annual Report 2026\n\nIntroduction\n\nGleaner turned');
    expect(result.text).not.toContain('#');
    expect(result.metadata).toMatchObject({
      title: 'Annual Report 2026',
      description: 'Numbers',
      language: 'en',
      document: { pages: 3, author: 'Ada Lovelace', producer: 'Gleaner test fixtures' },
    });
    expect(result.stats.htmlBytes).toBe(REPORT_PDF.length);
  });

  it('takes outline titles in body size as headings', async () => {
    const pdf = makePdf([[{ text: 'Scope' }, { text: 'What this covers.' }]], { outline: [{ title: 'Scope', page: 1 }] });
    const result = await pool.convertPdf({ pdf, url: 'https://docs.test/s.pdf', maxPages: 10 });
    expect(result.markdown).toBe('## Scope\n\nWhat this covers.');
  });

  it('an encrypted PDF is document_encrypted, a broken one document_invalid, a long one content_too_large', async () => {
    expect(await failure(LOCKED_PDF)).toMatchObject({ category: 'document_encrypted', retryable: false });
    const broken = await failure(BROKEN_PDF);
    expect(broken.category).toBe('document_invalid');
    expect(broken.message).toMatch(/could not be read/);
    const long = await failure(LONG_PDF, 10);
    expect(long.category).toBe('content_too_large');
    expect(long.message).toMatch(/12 pages; at most 10/);
  });

  it('keeps working after failures (the worker is not harmed)', async () => {
    const result = await pool.convertPdf({ pdf: LONG_PDF, url: 'https://docs.test/long.pdf', maxPages: 12 });
    expect(result.markdown.match(/<!-- page \d+ -->/g)).toHaveLength(12);
    expect(result.markdown).toContain('Page 12 of the long document.');
  });
});
