import { NOT_STARTED } from '@app/jobs';
import type { CrawlStarted, JobView } from '../api/api-types';
import type { CliContext } from '../context';
import { InterruptedError } from '../errors';
import { EXIT, type ExitCode } from '../exit-codes';

/**
 * What every job-starting command (crawl, batch, reextract) does right after its POST answered: a Ctrl-C
 * that came during the POST names the job that now exists; `--detach` prints its id (or the answer with
 * `--json`) and ends. Returns the exit code when the command ends here, null when it goes on to follow.
 */
export function afterStart(ctx: CliContext, started: { job_id: string }, noun: string, detach: boolean | undefined): ExitCode | null {
  if (ctx.signal.aborted) {
    ctx.io.stderr.write(`${noun} ${started.job_id} started; not following it: gleaner jobs watch ${started.job_id}\n`);
    throw new InterruptedError('');
  }
  if (!detach) return null;
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(started)}\n`);
  else {
    ctx.io.stdout.write(`${started.job_id}\n`);
    ctx.info(`${noun} started. Follow it with: ${ctx.err.bold(`gleaner jobs watch ${started.job_id}`)}`);
  }
  return EXIT.ok;
}

/** The job as the follower first knows it: what the start answer said, nothing done yet. */
export function startedJobView(started: CrawlStarted, type: string, url: string | null): JobView {
  return {
    id: started.job_id,
    type,
    status: started.status,
    url,
    created_at: new Date().toISOString(),
    ...NOT_STARTED,
  };
}
