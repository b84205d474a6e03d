import type { JobContext, JobRecord } from '@app/jobs';
import type { CrawlJobInput } from '../crawl-input';
import { BatchJobHandler } from './batch-job.handler';
import { CrawlJobHandler } from './crawl-job.handler';
import { ReextractJobHandler } from './reextract-job.handler';

describe('CrawlEngineJobHandler', () => {
  const crawls = { run: jest.fn(async () => undefined), onTerminal: jest.fn(async () => undefined) };

  it.each([
    [BatchJobHandler, 'batch'],
    [ReextractJobHandler, 'reextract'],
  ] as const)('%p runs its %s jobs and their ends as crawls', async (Handler, type) => {
    const handler = new Handler(crawls as unknown as CrawlJobHandler);
    expect(handler.type).toBe(type);
    const context = { job: { _id: 'j1' } } as unknown as JobContext<CrawlJobInput>;
    await handler.run(context);
    await handler.onTerminal({ _id: 'j1' } as JobRecord);
    expect(crawls.run).toHaveBeenLastCalledWith(context);
    expect(crawls.onTerminal).toHaveBeenLastCalledWith({ _id: 'j1' });
  });

  it('injects the crawl handler into each job type through the inherited constructor', () => {
    for (const Handler of [BatchJobHandler, ReextractJobHandler]) {
      expect(Reflect.getMetadata('design:paramtypes', Handler)).toEqual([CrawlJobHandler]);
    }
  });
});
