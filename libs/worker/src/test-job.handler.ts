import { Injectable } from '@nestjs/common';
import { AppError, isErrorCategory, sleep } from '@app/core';
import type { JobContext, JobHandler } from './job-handler';

export interface TestJobInput {
  steps: number;
  step_ms: number;
  fail_at?: number;
  fail_category?: string;
  /** Throw a retryable error on the first delivery of this step (proves queue retries resume). */
  flaky_at?: number;
}

/**
 * A job type used only by tests (GLEANER_ENABLE_TEST_JOBS=true): it emits one `result` per step,
 * counts pages, honours cancellation and resumes where it stopped after a redelivery.
 */
@Injectable()
export class TestJobHandler implements JobHandler {
  readonly type = 'test';

  async run({ job, signal, jobs, attempt }: JobContext): Promise<void> {
    const input = job.input as unknown as TestJobInput;
    for (let step = job.page_count; step < input.steps; step++) {
      await sleep(input.step_ms, signal);
      if (signal.aborted) return;
      if (input.fail_at === step) {
        const category = isErrorCategory(input.fail_category) ? input.fail_category : 'fetch_error';
        throw new AppError('upstream-failure', `test job failed at step ${step}`, { category });
      }
      if (input.flaky_at === step && attempt === 1) {
        throw new AppError('internal-error', `test job flaked at step ${step}`, { category: 'internal', retryable: true });
      }
      await jobs.publishResult(job, {
        id: `${job._id}-${step}`,
        url: `${job.url ?? 'test://job'}#${step}`,
        status: 'completed',
        data: { step },
        depth: 0,
        parent_url: null,
        token_usage_input: 0,
        token_usage_output: 0,
      });
      await jobs.progress(job._id, { page_count: 1 });
    }
  }
}
