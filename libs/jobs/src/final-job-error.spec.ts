import { AppError, StoreUnavailableError } from '@app/core';
import { finalJobError } from './final-job-error';

describe('finalJobError (a single-page job fails for good unless the failure is our own)', () => {
  it('keeps a category and retries only internal', () => {
    const model = finalJobError(new AppError('upstream-failure', 'bad answer', { category: 'llm_invalid_output', detail: 'no JSON' }), 'X');
    expect(model).toMatchObject({ slug: 'upstream-failure', message: 'bad answer', detail: 'no JSON', category: 'llm_invalid_output' });
    expect(model.retryable).toBe(false);
    expect(finalJobError(new AppError('internal-error', 'bug', { category: 'internal' }), 'X').retryable).toBe(true);
    const bare = finalJobError(new AppError('validation-error', 'no category'), 'X');
    expect(bare).toMatchObject({ category: 'internal', retryable: false });
  });

  it('makes an unexpected error internal and retryable, and throws a store outage on as it is', () => {
    const boom = new TypeError('boom');
    expect(finalJobError(boom, 'Scrape')).toMatchObject({
      category: 'internal',
      retryable: true,
      message: 'Scrape failed unexpectedly.',
      cause: boom,
    });
    const outage = new StoreUnavailableError(new Error('reset'));
    expect(() => finalJobError(outage, 'X')).toThrow(outage);
  });
});
