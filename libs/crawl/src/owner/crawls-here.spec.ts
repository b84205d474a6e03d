import { isJobYielded } from '@app/jobs';
import { CrawlsHere } from './crawls-here';

describe('CrawlsHere', () => {
  it('yields a second run of a crawl this process runs, without starting it, and lets other crawls run', async () => {
    const here = new CrawlsHere();
    let finish!: () => void;
    const first = here.run('a', () => new Promise<string>((resolve) => (finish = () => resolve('first'))));
    const second = jest.fn(async () => 'second');
    const error = await here.run('a', second).catch((e: unknown) => e);
    expect(isJobYielded(error)).toBe(true);
    expect(second).not.toHaveBeenCalled();
    await expect(here.run('b', async () => 'other')).resolves.toBe('other');
    finish();
    await expect(first).resolves.toBe('first');
  });

  it('runs the crawl again once the run here ended, also when it threw', async () => {
    const here = new CrawlsHere();
    await expect(here.run('a', async () => 1)).resolves.toBe(1);
    await expect(here.run('a', () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    await expect(here.run('a', async () => 2)).resolves.toBe(2);
  });
});
