import { BACKOFFS } from '@app/core';
import { DEFAULT_BACKOFF, messageRetry } from './queue-helpers';

describe('messageRetry (the retry rule every queue adapter enqueues a message with)', () => {
  it('three attempts and the queueMessage backoff when the options name none', () => {
    expect(messageRetry({})).toEqual({ attempts: 3, backoff: DEFAULT_BACKOFF });
    expect(DEFAULT_BACKOFF.delayMs).toBe(BACKOFFS.queueMessage.baseMs);
  });

  it("the options' attempts and backoff over the defaults, field by field", () => {
    expect(messageRetry({ attempts: 1, backoff: { delayMs: 50 } })).toEqual({
      attempts: 1,
      backoff: { ...DEFAULT_BACKOFF, delayMs: 50 },
    });
    expect(messageRetry({ backoff: { delayMs: 10, maxDelayMs: 20 } }).backoff).toEqual({ delayMs: 10, maxDelayMs: 20 });
  });
});
