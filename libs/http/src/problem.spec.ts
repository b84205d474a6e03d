import { AppError, StoreUnavailableError } from '@app/core';
import { toProblem } from './problem';

describe('toProblem: store outages', () => {
  it('answers a store outage with a 503 problem and Retry-After, without the driver message', () => {
    const outage = new StoreUnavailableError(new Error('connect ECONNREFUSED 10.0.0.7:27017'));
    const problem = toProblem(outage, '/api/v1/jobs/j1', 'r1');
    expect(problem).toEqual({
      status: 503,
      headers: { 'retry-after': '5' },
      body: {
        type: '/problems/service-unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The data store is not reachable. Retry after `Retry-After` seconds.',
        instance: '/api/v1/jobs/j1#r1',
      },
    });
    expect(JSON.stringify(problem)).not.toContain('10.0.0.7');
  });

  it('finds the outage under errors that wrapped it, even an internal AppError, but not under another problem', () => {
    const wrapped = new Error('saving failed', { cause: new StoreUnavailableError() });
    expect(toProblem(wrapped, '/x', 'r').status).toBe(503);
    const internal = new AppError('internal-error', 'oops', { cause: new StoreUnavailableError() });
    expect(toProblem(internal, '/x', 'r').status).toBe(503);
    const upstream = new AppError('upstream-failure', 'the site failed', { category: 'fetch_error', cause: new StoreUnavailableError() });
    expect(toProblem(upstream, '/x', 'r').status).toBe(502);
  });

  it('carries the job of an accepted request', () => {
    const problem = toProblem(
      new StoreUnavailableError(undefined, { job_id: 'j9', status_url: '/api/v1/jobs/j9' }),
      '/api/v1/extract',
      'r',
    );
    expect(problem.status).toBe(503);
    expect(problem.body).toMatchObject({ job_id: 'j9', status_url: '/api/v1/jobs/j9', detail: expect.stringContaining('accepted') });
  });
});
