import { messageText, parseMessageText } from './redis-list-queue.adapter';

describe('the Redis list queue message text', () => {
  const body = {
    id: 'job-1:a|b:3',
    name: 'page',
    payload: { url: 'https://a.test/x?y=1|2', nested: { list: [1, null, true], empty: {} } },
    made: 1,
    max: 10,
    backoff: { delayMs: 500, maxDelayMs: 8000 },
  };

  it('round-trips a message, its stall count and an id holding the separator', () => {
    const text = messageText(body, 2);
    expect(text.startsWith(`2|${body.id.length}|${body.id}{`)).toBe(true);
    expect(parseMessageText(text)).toEqual({ body, stalls: 2 });
    expect(parseMessageText(messageText(body))).toEqual({ body, stalls: 0 });
  });

  it('refuses a text that is not a message of the queue', () => {
    expect(() => parseMessageText('{"id":"x"}')).toThrow('not a queue message');
  });
});
