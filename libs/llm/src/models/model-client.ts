import { AppError } from '@app/core';
import { AddressGuard } from '@app/fetch';
import { warmUpModelSdks } from './sdk-warm-up';
import { callAnthropic } from './anthropic-protocol';
import { createGuardedFetch, createModelAgents, type FetchFunction } from './guarded-fetch';
import { endpointOf } from './model-endpoints';
import { toModelCallError } from './model-errors';
import type { ModelReply, ModelRequest, ModelTarget } from './model-types';
import { callOpenAiCompatible } from './openai-protocol';

export interface ModelClientOptions {
  /** Guards user-supplied endpoints (GLEANER_ALLOW_PRIVATE_NETWORKS decides loopback/private). */
  guard: AddressGuard;
  /** Deadline of one call when the request sets none (GLEANER_LLM_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * One model call on the official SDKs, nothing more: no retries (the router owns the policy), a
 * deadline and the caller's abort signal, structured output, the provider's own token report, and a
 * categorised AppError (never holding the key) on failure. Every connection goes through the
 * address guard; endpoints from the operator's configuration may be on private networks.
 */
export class ModelClient {
  private readonly guardedFetch: FetchFunction;
  private readonly trustedFetch: FetchFunction;
  private readonly agents = createModelAgents();

  constructor(private readonly options: ModelClientOptions) {
    const agents = this.agents;
    this.guardedFetch = createGuardedFetch(options.guard, agents);
    // Still pinned to the addresses it resolved; only the private-range rule is lifted.
    this.trustedFetch = createGuardedFetch(new AddressGuard({ allowPrivateNetworks: true }), agents);
  }

  /** The provider SDKs run once in the background at start (warmUpModelSdks: nothing leaves the process). */
  onApplicationBootstrap(): void {
    void warmUpModelSdks().catch(() => undefined);
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /**
   * Nest calls it on shutdown (the client is provided by a factory in LlmModule), after the job
   * runner handed back or finished its in-flight work (which may still call models until then).
   */
  onApplicationShutdown(): void {
    this.close();
  }

  async complete(target: ModelTarget, request: ModelRequest): Promise<ModelReply> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const started = performance.now();
    if (request.signal?.aborted) {
      throw new AppError('upstream-failure', `${target.provider} ${target.model}: the call was cancelled`, { category: 'cancelled' });
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('model call deadline'));
    }, timeoutMs);
    const onAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const call = {
        target,
        request,
        endpoint: endpointOf(target.provider, target.baseUrl),
        fetch: target.trustedEndpoint ? this.trustedFetch : this.guardedFetch,
        signal: controller.signal,
        timeoutMs,
      };
      const reply = target.provider === 'anthropic' ? await callAnthropic(call) : await callOpenAiCompatible(call);
      return { ...reply, durationMs: Math.round(performance.now() - started), provider: target.provider, model: target.model };
    } catch (error) {
      throw toModelCallError(error, { target, timedOut, cancelled: Boolean(request.signal?.aborted) && !timedOut, timeoutMs });
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  }
}
