import type { JobRecord } from '@app/jobs';
import { fetchSecretValues } from '@app/fetch';
import type { ResultsService } from '@app/results';
import type { CallTrace } from '../extraction.service';

/** A debug-capture recorder for the model calls of one page (a BYOK key is scrubbed from every field). */
export function captureRecorder(
  results: Pick<ResultsService, 'recordCapture'>,
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
