import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, isErrorCategory, sleep } from '@app/core';
import { guardFromSettings, isFetchError, StaticFetcher } from '@app/fetch';
import { ResultsService, type RecordResultInput } from '@app/results';
import { TEST_JOB_TYPE, type JobContext, type JobHandler } from '@app/jobs';

export interface TestJobInput {
  steps: number;
  step_ms: number;
  fail_at?: number;
  fail_category?: string;
  /** Throw a retryable error on the first delivery of this step (proves queue retries resume). */
  flaky_at?: number;
  /** Step i records results[i] verbatim (`{url?, status?, data, error_category?, error_message?, metadata?}`) instead of `{step}`. */
  results?: Array<Record<string, unknown>>;
  /** Before step `hold_at`, wait until `gate_url` answers 200 (tests: work provably in flight, released at will). */
  hold_at?: number;
  gate_url?: string;
}

const testInputSchema = z.object({
  steps: z.number().int().min(0),
  step_ms: z.number().int().min(0),
  fail_at: z.number().int().optional(),
  fail_category: z.string().optional(),
  flaky_at: z.number().int().optional(),
  results: z.array(z.record(z.string(), z.unknown())).optional(),
  hold_at: z.number().int().optional(),
  gate_url: z.string().optional(),
});

/**
 * Polls a test gate until it opens (2xx) or the job is aborted. Through the app's address guard like
 * every fetch a job makes: a gate the guard refuses fails the job instead of being polled.
 */
async function waitForGate(fetcher: StaticFetcher, url: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      await fetcher.fetch(url, { signal });
      return;
    } catch (error) {
      if (isFetchError(error, 'ssrf_blocked')) throw error;
    }
    await sleep(50, signal);
  }
}

/**
 * A job type used only by tests (mounted by the test apps, never in the production build): it records one result per step,
 * counts pages, honours cancellation and resumes where it stopped after a redelivery. With
 * capture_debug it also records one debug capture per step.
 */
@Injectable()
export class TestJobHandler implements JobHandler<TestJobInput>, OnApplicationShutdown {
  readonly type = TEST_JOB_TYPE;

  private readonly gates: StaticFetcher;

  constructor(
    private readonly results: ResultsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.gates = new StaticFetcher({ guard: guardFromSettings(config), timeoutMs: 10_000 });
  }

  onApplicationShutdown(): void {
    this.gates.close();
  }

  parseInput(raw: unknown): TestJobInput {
    return testInputSchema.parse(raw);
  }

  async run({ job, input, signal, jobs, attempt }: JobContext<TestJobInput>): Promise<void> {
    for (let step = job.page_count; step < input.steps; step++) {
      if (input.hold_at === step && input.gate_url) await waitForGate(this.gates, input.gate_url, signal);
      await sleep(input.step_ms, signal);
      if (signal.aborted) return;
      if (input.fail_at === step) {
        const category = isErrorCategory(input.fail_category) ? input.fail_category : 'fetch_error';
        throw new AppError('upstream-failure', `test job failed at step ${step}`, { category });
      }
      if (input.flaky_at === step && attempt === 1) {
        throw new AppError('internal-error', `test job flaked at step ${step}`, { category: 'internal', retryable: true });
      }
      const url = `${job.url ?? 'test://job'}#${step}`;
      await this.results.record(job, this.resultOf(input.results?.[step], url, step));
      await this.results.recordCapture(job, {
        url,
        prompt: `Extract step ${step}`,
        raw_content: `content of ${url}`,
        schema: { type: 'object', properties: { step: { type: 'integer' } } },
        hints_applied: { step: String(step) },
        request: { fetch_mode: 'static', model: 'test-model', provider: 'test' },
        response: { duration_ms: 0, input_tokens: 0, output_tokens: 0, success: true },
      });
      await jobs.progress(job._id, { page_count: 1 });
    }
  }

  private resultOf(given: Record<string, unknown> | undefined, url: string, step: number): RecordResultInput {
    if (!given) return { url, status: 'completed', data: { step } };
    const failed = given.status === 'failed';
    return {
      url: typeof given.url === 'string' ? given.url : url,
      status: failed ? 'failed' : 'completed',
      data: given.data ?? null,
      error_category: failed && isErrorCategory(given.error_category) ? given.error_category : failed ? 'internal' : null,
      error_message: failed ? String(given.error_message ?? 'test failure') : null,
      ...(isRecord(given.metadata) ? { metadata: given.metadata } : {}),
    };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
