import { AppError, isStoreUnavailable } from '@app/core';
import type { JobRecord } from '@app/jobs';
import { fetchSecretValues } from '@app/fetch';
import type { ResultsService } from '@app/results';
import type { CallTrace } from './extraction.service';

/**
 * Errors of extract/analyze jobs are final: the job answers a waiting caller and retrying the whole
 * job would only delay that answer. Only internal errors (bugs, crashes) go back to the queue.
 */
export function finalJobError(error: unknown, what: string): AppError {
  // A store outage is nobody's final answer: thrown on as it is, the job runner waits it out (see JobRunnerService).
  if (isStoreUnavailable(error)) throw error;
  if (error instanceof AppError) {
    return new AppError(error.slug, error.message, {
      detail: error.detail,
      category: error.category ?? 'internal',
      retryable: error.category === 'internal',
    });
  }
  return new AppError('internal-error', `${what} failed unexpectedly.`, { category: 'internal', retryable: true, cause: error });
}

/** A debug-capture recorder for the model calls of one page (a BYOK key is scrubbed from every field). */
export function captureRecorder(
  results: ResultsService,
  job: JobRecord,
  page: { url: string; fetchMode: string; schema: string; hints?: Record<string, string> },
  secrets: Record<string, string>,
): ((call: CallTrace) => Promise<void>) | undefined {
  if (!job.capture_debug) return undefined;
  const redact = [...(secrets.llm_api_key ? [secrets.llm_api_key] : []), ...fetchSecretValues(secrets)];
  return async (call) => {
    await results.recordCapture(
      job,
      {
        url: page.url,
        prompt: call.prompt,
        raw_content: call.content,
        schema: page.schema,
        hints_applied: page.hints ?? {},
        request: {
          content_size: call.contentSize,
          fetch_mode: page.fetchMode,
          model: call.target.model,
          prompt_size: call.promptSize,
          provider: call.target.provider,
        },
        response: {
          duration_ms: call.durationMs,
          error: call.error ?? '',
          input_tokens: call.inputTokens,
          output_tokens: call.outputTokens,
          success: call.success,
        },
      },
      { redact },
    );
  };
}
