import { isJobYielded } from '@app/jobs';
import { LiveCrawls } from './live-crawls';

describe('LiveCrawls', () => {
  it('yields a second delivery of a crawl whose actor runs here, and runs it once that actor ended', async () => {
    const crawls = new LiveCrawls();
    let finish!: () => void;
    const first = crawls.run('job-1', () => new Promise<string>((resolve) => (finish = () => resolve('first'))));
    expect(crawls.has('job-1')).toBe(true);

    const second = await crawls.run('job-1', async () => 'second').catch((error: unknown) => error);
    expect(isJobYielded(second)).toBe(true);
    await expect(crawls.run('job-2', async () => 'other crawl')).resolves.toBe('other crawl');

    finish();
    await expect(first).resolves.toBe('first');
    expect(crawls.has('job-1')).toBe(false);
    await expect(crawls.run('job-1', async () => 'again')).resolves.toBe('again');
  });

  it('frees the crawl when its actor fails', async () => {
    const crawls = new LiveCrawls();
    await expect(crawls.run('job-1', async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(crawls.has('job-1')).toBe(false);
  });
});
