import type { ApiClient } from '../api/api-client';
import type { JobView } from '../api/api-types';
import type { CliContext } from '../context';
import { CliFailure } from '../errors';
import { JobFollower } from './job-follower';
import { NoProgress } from './progress';

/** A followed job ended failed or cancelled (exit 1). */
export class JobFailedError extends CliFailure {}

/**
 * A single-page job that outlived the service's wait (504 with its id): follows its stream to the
 * end and returns it completed; a failed or cancelled job is a JobFailedError naming `what`.
 */
export async function awaitJobEnd(ctx: CliContext, client: ApiClient, jobId: string, what: string): Promise<JobView> {
  const id = encodeURIComponent(jobId);
  const job = (await client.json<JobView>('GET', `/api/v1/jobs/${id}`)).body;
  const follower = new JobFollower({
    client,
    job,
    sink: null,
    display: new NoProgress(ctx.io.stderr),
    prompt: null,
    signals: ctx.signals,
    colors: ctx.err,
    reconnectTimeoutMs: 300_000,
    signal: ctx.signal,
    json: ctx.json,
  });
  const outcome = await follower.run();
  if (outcome.kind !== 'complete') throw new CliFailure(`detached; the job goes on: gleaner jobs watch ${jobId}`);
  const done = (await client.json<JobView>('GET', `/api/v1/jobs/${id}`)).body;
  if (done.status !== 'completed') {
    throw new JobFailedError(
      `${what} ${done.status}: ${[done.error_category, done.error_message].filter(Boolean).join(': ') || 'no reason given'}`,
    );
  }
  return done;
}
