import { AppError, ERROR_CATEGORIES, PROBLEMS } from '@app/core';
import { completedPage, jobFailureToProblem, type PageOutcome } from './failure-mapping';

const statusOf = (error: { slug: string }) => PROBLEMS[error.slug as keyof typeof PROBLEMS].status;

describe('how a failed single-page job answers (issue 40, item 14: no upstream failure is a 500)', () => {
  it('answers 500 for Gleaner’s own failure only; every failure of the site or the model is a 4xx, 502 or 504', () => {
    for (const category of ERROR_CATEGORIES) {
      const status = statusOf(jobFailureToProblem('j1', category, 'm'));
      expect([category, status === 500]).toEqual([category, category === 'internal']);
    }
    expect(statusOf(jobFailureToProblem('j1', 'fetch_error', 'DNS lookup of no-such.invalid failed (ENOTFOUND).'))).toBe(502);
  });
});

describe('completedPage: the page of a completed one-page job', () => {
  const thrown = (item: PageOutcome | null): AppError => {
    try {
      completedPage('j1', item);
    } catch (error) {
      return error as AppError;
    }
    throw new Error('completedPage returned');
  };

  it('returns a completed page as it is', () => {
    const page = { status: 'completed' as const, data: { title: 'A' } };
    expect(completedPage('j1', page)).toBe(page);
  });

  it('answers a failed page with its own failure, as a failed job with it answers: 502, 504, never a 500 but for Gleaner’s own', () => {
    const fetch = thrown({ status: 'failed', error_category: 'fetch_error', error_message: 'The site answered 503.' });
    expect([fetch.slug, statusOf(fetch), fetch.message, fetch.category]).toEqual([
      'upstream-failure',
      502,
      'The site answered 503.',
      'fetch_error',
    ]);
    expect(fetch.extensions).toEqual({ job_id: 'j1' });
    const timeout = thrown({ status: 'failed', error_category: 'timeout', error_message: 'The page did not load within 30 s.' });
    expect([timeout.slug, statusOf(timeout)]).toEqual(['upstream-timeout', 504]);
    for (const category of ERROR_CATEGORIES) {
      const status = statusOf(thrown({ status: 'failed', error_category: category, error_message: 'm' }));
      expect([category, status === 500]).toEqual([category, category === 'internal']);
    }
  });

  it('gives a failed page stored without a message or category the problem’s own default text', () => {
    const noMessage = thrown({ status: 'failed', error_category: 'fetch_error', error_message: '' });
    expect([statusOf(noMessage), noMessage.message]).toEqual([502, 'The job failed.']);
    const bare = thrown({ status: 'failed' });
    expect([statusOf(bare), bare.message]).toEqual([500, 'Internal error.']);
  });

  it('answers a completed job without any page as Gleaner’s own failure (500), with the job id', () => {
    const missing = thrown(null);
    expect([statusOf(missing), missing.category, missing.extensions]).toEqual([500, 'internal', { job_id: 'j1' }]);
  });
});
