import { Inject, Injectable, Optional } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import { AppError, roundUsd } from '@app/core';
import { LOGGER, type AppLogger } from '@app/observability';
import type { LlmConfig } from '../llm-config';
import type { PriceTable } from '../price-table';
import { modelRetryDelayMs, DEFAULT_BACKOFF, fallbackAction, type RetryPolicy } from './fallback-policy';
import type { LlmMetrics } from './llm-metrics';
import type { ModelClient } from './model-client';
import { ModelCallParts } from './model-call-parts';
import { callCost, withFee } from './model-cost';
import { ModelCallError, ModelRunError, noModelsError, scrubKeys } from './model-errors';
import { ModelPlanner } from './model-planner';
import type { AttemptRecord, LlmConfigInput, ModelCall, ModelRequest, ModelTarget, RunResult, RunSummary, TokenUsage } from './model-types';

/** Overrides of the backoff (tests); retries default to GLEANER_LLM_RETRIES. */
export const MODEL_RETRY_POLICY = Symbol('MODEL_RETRY_POLICY');
/** Overrides how the router waits between retries (tests); the default is a real timer. */
export const MODEL_RETRY_PAUSE = Symbol('MODEL_RETRY_PAUSE');

/** Waits `ms` before a retry; resolves false when the signal fired first (the run is cancelled). */
export type RetryPause = (ms: number, signal?: AbortSignal) => Promise<boolean>;

export interface RunOptions {
  /** Cancels the run (job cancelled): the current call is aborted and no further attempt starts. */
  signal?: AbortSignal;
  /** Deadline of each call unless the request sets one. */
  timeoutMs?: number;
}

/** The work of one attempt: call the model (once or more, e.g. a repair) and return the parsed value. */
export type AttemptFunction<T> = (target: ModelTarget, call: ModelCall) => Promise<T>;

/**
 * Runs an attempt function over a plan of targets with the fallback policy:
 * transient failures (llm_rate_limit, llm_provider_error, llm_timeout) retry the same target with
 * capped exponential backoff honouring Retry-After, then move on; llm_truncation and
 * llm_invalid_output (thrown by the attempt, e.g. from its own parsing) move on; llm_invalid_key and
 * llm_quota_exceeded skip every target with the same key; ssrf_blocked skips the endpoint;
 * invalid_request, cancellation and non-model errors stop. Every attempt is recorded with its
 * tokens, duration and cost; when all fail, the last error is thrown as a ModelRunError holding them.
 */
@Injectable()
export class ModelRouter {
  private readonly policy: RetryPolicy;
  private readonly pause: RetryPause;
  private readonly client: ModelClient;
  private readonly prices: PriceTable;
  private readonly metrics: LlmMetrics;

  constructor(
    private readonly planner: ModelPlanner,
    calls: ModelCallParts,
    @Inject(APP_CONFIG) private readonly config: LlmConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Optional() @Inject(MODEL_RETRY_POLICY) policy?: Partial<RetryPolicy>,
    @Optional() @Inject(MODEL_RETRY_PAUSE) pause?: RetryPause,
  ) {
    ({ client: this.client, prices: this.prices, metrics: this.metrics } = calls);
    this.policy = { retries: config.llmRetries, ...DEFAULT_BACKOFF, ...policy };
    this.pause = pause ?? pauseUnlessAborted;
  }

  /** The ordered targets for a caller (see ModelPlanner). Throws no_models (422) when there is none. */
  plan(caller: { userId: string }, llmConfig?: LlmConfigInput | null): Promise<ModelTarget[]> {
    return this.planner.plan(caller, llmConfig);
  }

  async run<T>(plan: ModelTarget[], attempt: AttemptFunction<T>, options: RunOptions = {}): Promise<RunResult<T>> {
    if (plan.length === 0) throw noModelsError('The model plan is empty.');
    const attempts: AttemptRecord[] = [];
    const total: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let llmCost = 0;
    let lastError: AppError | undefined;
    let lastTarget = plan[0];
    const skipped = new Set<string>();
    const summary = (target: ModelTarget): RunSummary => {
      const llmCostUsd = roundUsd(llmCost);
      return { attempts, usage: { ...total }, llmCostUsd, costUsd: withFee(llmCostUsd, this.config.feePercent), isByok: target.isByok };
    };
    const cancelled = () => new AppError('upstream-failure', 'The model run was cancelled.', { category: 'cancelled' });

    for (const target of plan) {
      if (skipped.has(keyIdentity(target)) || skipped.has(endpointIdentity(target))) continue;
      for (let retry = 0; ; retry++) {
        if (options.signal?.aborted) throw new ModelRunError(cancelled(), summary(lastTarget));
        lastTarget = target;
        const tally = { usage: { inputTokens: 0, outputTokens: 0 }, cost: 0, known: true };
        const call: ModelCall = (request) => this.call(target, request, options, tally);
        const started = performance.now();
        const record = (outcome: AttemptRecord['outcome'], message?: string): AttemptRecord => {
          const entry: AttemptRecord = {
            provider: target.provider,
            model: target.model,
            outcome,
            input_tokens: tally.usage.inputTokens,
            output_tokens: tally.usage.outputTokens,
            duration_ms: Math.round(performance.now() - started),
            llm_cost_usd: roundUsd(tally.cost),
            cost_known: tally.known,
            ...(message !== undefined ? { error_message: scrubKeys(message, [target.apiKey]) } : {}),
          };
          attempts.push(entry);
          total.inputTokens += entry.input_tokens;
          total.outputTokens += entry.output_tokens;
          llmCost += tally.cost;
          this.metrics.record(target.provider, target.model, outcome, tally.usage, tally.cost, entry.duration_ms);
          return entry;
        };

        let error: unknown;
        try {
          const value = await attempt(target, call);
          record('success');
          return { value, target, ...summary(target) };
        } catch (thrown) {
          error = thrown;
        }

        const appError = error instanceof AppError ? error : undefined;
        const outcome = options.signal?.aborted ? 'cancelled' : (appError?.category ?? 'internal');
        const entry = record(outcome, appError ? (appError.detail ?? appError.message) : 'unexpected error in the attempt');
        this.logger.warn(
          {
            provider: target.provider,
            model: target.model,
            source: target.source,
            outcome,
            retry,
            duration_ms: entry.duration_ms,
            error: entry.error_message,
          },
          'model attempt failed',
        );
        // Not a model failure (a bug in the attempt, a store error): the caller must see it as it is.
        if (!appError) throw error;
        if (outcome === 'cancelled') throw new ModelRunError(cancelled(), summary(target));
        lastError = appError;

        const action = fallbackAction(appError.category, retry, this.policy);
        if (action === 'retry') {
          const delay = modelRetryDelayMs(retry, appError.retryAfterSeconds, this.policy);
          if (delay === null) break;
          if (!(await this.pause(delay, options.signal))) throw new ModelRunError(cancelled(), summary(target));
          continue;
        }
        if (action === 'skip-key') skipped.add(keyIdentity(target));
        if (action === 'skip-endpoint') skipped.add(endpointIdentity(target));
        if (action === 'stop') throw new ModelRunError(appError, summary(target));
        break;
      }
    }
    throw new ModelRunError(lastError ?? noModelsError('No model of the plan could be tried.'), summary(lastTarget));
  }

  /** One model call inside an attempt; its tokens and cost count even when it fails (they were billed). */
  private async call(
    target: ModelTarget,
    request: ModelRequest,
    options: RunOptions,
    tally: { usage: TokenUsage; cost: number; known: boolean },
  ) {
    const signals = [options.signal, request.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const account = (usage: TokenUsage | undefined, providerCostUsd: number | null) => {
      if (!usage) return;
      tally.usage.inputTokens += usage.inputTokens;
      tally.usage.outputTokens += usage.outputTokens;
      const cost = callCost(this.prices, target.provider, target.model, usage, providerCostUsd);
      tally.cost += cost.usd;
      if (!cost.known) tally.known = false;
    };
    try {
      const reply = await this.client.complete(target, { ...request, signal, timeoutMs: request.timeoutMs ?? options.timeoutMs });
      account(reply.usage, reply.providerCostUsd);
      return reply;
    } catch (error) {
      if (error instanceof ModelCallError) account(error.usage, error.providerCostUsd);
      throw error;
    }
  }
}

/** Targets sharing a key share its fate (invalid, out of credit). */
const keyIdentity = (t: ModelTarget) => `key\n${t.provider}\n${t.source}\n${t.apiKey ?? ''}\n${t.baseUrl ?? ''}`;
const endpointIdentity = (t: ModelTarget) => `endpoint\n${t.provider}\n${t.baseUrl ?? ''}\n${t.trustedEndpoint === true}`;

/** The real RetryPause: waits `ms`; false when the signal fired first. */
export function pauseUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (result: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
