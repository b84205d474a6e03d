import { gleanerWebhook } from './webhook';

describe('gleanerWebhook (Firecrawl webhook → Gleaner inline webhook)', () => {
  it('maps an address to webhook_url', () => {
    expect(gleanerWebhook('https://hooks.example/a')).toEqual({ webhook_url: 'https://hooks.example/a' });
  });

  it('maps each event once, however often it is listed (the fuzzer sent 17; Gleaner takes at most 10), and adds job.cancelled', () => {
    const events = ['page', 'page', 'started', 'started', 'failed', 'page', 'completed', 'completed', 'page', 'started', 'page'] as const;
    expect(gleanerWebhook({ url: 'https://hooks.example/a', events: [...events] })).toEqual({
      webhook: { url: 'https://hooks.example/a', events: ['job.page', 'job.started', 'job.failed', 'job.completed', 'job.cancelled'] },
    });
  });

  it('keeps the headers as name/value pairs and leaves events out when none is listed', () => {
    expect(gleanerWebhook({ url: 'https://hooks.example/a', headers: { 'X-Key': 'v' } })).toEqual({
      webhook: { url: 'https://hooks.example/a', headers: [{ name: 'X-Key', value: 'v' }] },
    });
  });
});
