import type { LoadedPage } from '@app/pages';
import { MAX_SCRAPE_DATA_BYTES } from '@app/pages';
import { formatsOutcome, formatsResult, pageScreenshotId } from './formats-result';

function page(screenshot?: Buffer): LoadedPage {
  return {
    fetch: {
      url: 'https://a.example/x',
      status: 200,
      contentType: 'text/html',
      html: '<p>Hi</p>',
      mode: 'dynamic',
      ...(screenshot ? { screenshot } : {}),
    },
    content: {
      markdown: 'Hi',
      links: [{ url: 'https://a.example/y', text: 'y' }],
      metadata: { openGraph: {}, jsonLd: [], title: 'X' },
      stats: { ms: 2.4 },
    },
    fetchedAt: '2026-11-26T00:00:00.000Z',
    fetchDurationMs: 5,
  } as unknown as LoadedPage;
}

describe('formatsResult (a page of a crawl without a schema)', () => {
  it('makes the formats with no model call and no cost, the page facts as metadata', async () => {
    const stored: string[] = [];
    const result = await formatsResult(
      page(),
      { formats: ['markdown', 'links'], only_main_content: true, full_page_screenshot: false },
      { jobId: 'J1', key: 'a.example/x', store: async (id) => void stored.push(id) },
    );
    expect(result).toMatchObject({
      data: { markdown: 'Hi', links: [{ url: 'https://a.example/y', text: 'y' }] },
      method: 'scrape',
      details: { status_code: 200, content_type: 'text/html', fetch_mode: 'dynamic', convert_duration_ms: 2 },
      cost_usd: 0,
      llm_model: null,
      token_usage_input: 0,
    });
    expect(stored).toEqual([]);
  });

  it('stores the screenshot under an id made from the job and the page key, and names it in data and metadata', async () => {
    const stored: Array<[string, number]> = [];
    const png = Buffer.from('png-bytes');
    const result = await formatsResult(
      page(png),
      { formats: ['screenshot'], only_main_content: true, full_page_screenshot: false },
      { jobId: 'J1', key: 'a.example/x', store: async (id, bytes) => void stored.push([id, bytes.length]) },
    );
    const id = pageScreenshotId('J1', 'a.example/x');
    expect(stored).toEqual([[id, png.length]]);
    expect(result.data).toEqual({ screenshot: `/api/v1/jobs/J1/screenshots/${id}` });
    expect(result.details).toMatchObject({ screenshot_id: id });
  });

  it('derives screenshot ids that are path-safe, stable and distinct per page', () => {
    const a = pageScreenshotId('J1', 'a.example/x?q=../..');
    expect(a).toMatch(/^J1-[0-9a-f]{24}$/);
    expect(pageScreenshotId('J1', 'a.example/x?q=../..')).toBe(a);
    expect(pageScreenshotId('J1', 'a.example/y')).not.toBe(a);
  });

  it('fails the page, not the task, when its formats are too large to store', async () => {
    const big = page();
    big.content.markdown = 'x'.repeat(MAX_SCRAPE_DATA_BYTES + 1);
    const base = { final_url: 'https://a.example/x', http_status: 200, fetch_mode: 'static', links: [], fetch_duration_ms: 5 };
    const outcome = await formatsOutcome(big, { formats: ['markdown'], only_main_content: true, full_page_screenshot: false }, base, {
      jobId: 'J1',
      key: 'k',
      store: async () => undefined,
    });
    expect(outcome).toMatchObject({ kind: 'failed', error_category: 'content_too_large', retryable: false, http_status: 200 });
    const stored = await formatsOutcome(page(), { formats: ['markdown'], only_main_content: true, full_page_screenshot: false }, base, {
      jobId: 'J1',
      key: 'k',
      store: async () => undefined,
    });
    expect(stored).toMatchObject({ kind: 'completed', final_url: 'https://a.example/x', result: { method: 'scrape' } });
  });

  it('lets a store failure through (the queue delivers the task again)', async () => {
    const failing = formatsOutcome(
      page(Buffer.from('png')),
      { formats: ['screenshot'], only_main_content: true, full_page_screenshot: false },
      { final_url: 'https://a.example/x', http_status: 200, fetch_mode: 'dynamic', links: [], fetch_duration_ms: 5 },
      { jobId: 'J1', key: 'k', store: async () => Promise.reject(new Error('store down')) },
    );
    await expect(failing).rejects.toThrow('store down');
  });
});
