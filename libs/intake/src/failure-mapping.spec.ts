import { ERROR_CATEGORIES, PROBLEMS } from '@app/core';
import { jobFailureToProblem } from './failure-mapping';

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
