import { Injectable, type OnModuleInit } from '@nestjs/common';
import { JobDeletionHooks } from '@app/jobs';
import { ResultsRepository } from './results.repository';
import { ScreenshotsRepository } from './screenshots.repository';

/** DELETE /jobs/{id}: a job's results, debug captures and screenshots go with it. */
@Injectable()
export class ResultsDeletion implements OnModuleInit {
  constructor(
    private readonly hooks: JobDeletionHooks,
    private readonly results: ResultsRepository,
    private readonly screenshots: ScreenshotsRepository,
  ) {}

  onModuleInit(): void {
    this.hooks.register(async (job) => {
      await this.results.deleteJob(job._id);
      await this.screenshots.deleteJob(job._id);
    });
  }
}
