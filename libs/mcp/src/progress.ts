/** Sends MCP progress notifications for one tool call (only when the caller asked, with a progress token). */
export interface ProgressSink {
  report(progress: number, total?: number, message?: string): Promise<void>;
}

type Notify = (notification: {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
}) => Promise<void>;

/** Progress must only grow (MCP): reports that do not move it are dropped; a lost notification never fails the call. */
export function progressSink(token: string | number | undefined, notify: Notify): ProgressSink {
  let last = -1;
  return {
    async report(progress, total, message) {
      if (token === undefined || progress <= last) return;
      last = progress;
      await notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) },
      }).catch(() => undefined);
    },
  };
}

/**
 * While a synchronous REST call runs (extract, analyze, scrape, map: the service answers when the job
 * is done), reports the seconds waited every `everyMs`, so a client that resets its timeout on progress
 * keeps waiting. Returns the call's own result.
 */
export async function withHeartbeat<T>(sink: ProgressSink, work: Promise<T>, what: string, everyMs = 5_000): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    void sink.report(seconds, undefined, `${what}: ${seconds} s`);
  }, everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
