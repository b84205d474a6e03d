import { warmUpModelSdks } from './sdk-warm-up';

describe('warmUpModelSdks', () => {
  it('runs both SDKs against canned in-process answers and sends nothing out', async () => {
    const realFetch = globalThis.fetch;
    const outside = jest.fn();
    globalThis.fetch = outside;
    try {
      await expect(warmUpModelSdks()).resolves.toBeUndefined();
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(outside).not.toHaveBeenCalled();
  });
});
