import { NOT_STARTED, type JobSummaryFields } from './job.types';

describe('NOT_STARTED', () => {
  it('is a job with no time, pages, tokens, cost or error yet, in the order a job record and view list them', () => {
    expect(Object.entries(NOT_STARTED)).toEqual([
      ['started_at', null],
      ['completed_at', null],
      ['cost_usd', 0],
      ['page_count', 0],
      ['urls_queued', 0],
      ['failed_count', 0],
      ['token_usage_input', 0],
      ['token_usage_output', 0],
      ['error_category', null],
      ['error_message', null],
    ]);
  });

  it('spreads into a summary as fresh values', () => {
    const summary: Partial<JobSummaryFields> = { ...NOT_STARTED };
    summary.page_count = 3;
    expect(NOT_STARTED.page_count).toBe(0);
  });
});
