import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PageArchive } from '@app/archive';
import { DuplicateIndex } from '@app/dedup';
import { JobDeletionHooks } from '@app/jobs';
import { CrawlRepository } from '../crawl.repository';

/**
 * DELETE /jobs/{id}: a job's crawl map, crawl state, page outcomes and duplicate index go, and its archived pages with
 * every body no other job of the tenant references (docs/archive.md "Deleting").
 */
@Injectable()
export class CrawlDeletion implements OnModuleInit {
  constructor(
    private readonly hooks: JobDeletionHooks,
    private readonly repository: CrawlRepository,
    private readonly archive: PageArchive,
    private readonly duplicates: DuplicateIndex,
  ) {}

  onModuleInit(): void {
    this.hooks.register(async (job) => {
      await this.archive.deleteJob(job.user_id, job._id);
      await this.repository.deleteJob(job._id);
      await this.duplicates.forget(job._id);
    });
  }
}
