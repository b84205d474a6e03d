import { AppError, type ErrorCategory, type ProblemSlug } from '@app/core';
import { parseRetryAfter } from '@app/fetch';
import { scrubSecrets } from '@app/observability';
import type { ModelTarget, RunSummary, TokenUsage } from './model-types';

/** Categories worth retrying on the same target (rate limits, 5xx, network, our deadline). */
export const TRANSIENT_LLM_CATEGORIES: readonly ErrorCategory[] = ['llm_rate_limit', 'llm_provider_error', 'llm_timeout'];

const SLUGS: Partial<Record<ErrorCategory, ProblemSlug>> = {
  invalid_request: 'validation-error',
  no_models: 'validation-error',
};

/**
 * A failed model call. Calls that consumed tokens before failing (a truncated reply) carry their
 * usage, so the router can still bill them.
 */
export class ModelCallError extends AppError {
  constructor(
    category: ErrorCategory,
    message: string,
    options: { retryAfterSeconds?: number; usage?: TokenUsage; providerCostUsd?: number | null } = {},
  ) {
    super(SLUGS[category] ?? 'upstream-failure', message, {
      category,
      retryable: TRANSIENT_LLM_CATEGORIES.includes(category),
      retryAfterSeconds: options.retryAfterSeconds,
    });
    this.name = 'ModelCallError';
    this.usage = options.usage;
    this.providerCostUsd = options.providerCostUsd ?? null;
  }
  readonly usage?: TokenUsage;
  readonly providerCostUsd: number | null;
}

/** Every model in the plan failed: the last (most telling) error, with what the run cost. */
export class ModelRunError extends AppError {
  constructor(
    last: AppError,
    readonly run: RunSummary,
  ) {
    super(last.slug, last.message, {
      detail: last.detail,
      category: last.category,
      retryable: last.retryable,
      retryAfterSeconds: last.retryAfterSeconds,
      errors: last.errors,
    });
    this.name = 'ModelRunError';
  }
}

/** The caller has nothing usable to call: caller-fixable (store a key, set a chain, send llm_config), so a 422. */
export function noModelsError(detail: string, location?: string): AppError {
  return new AppError('validation-error', detail, {
    category: 'no_models',
    errors: location ? [{ location, message: detail }] : undefined,
  });
}

/** Removes API keys from free text: the target's own key verbatim, then anything key-shaped. */
export function scrubKeys(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  return scrubSecrets(out)
    .replace(/\b(sk-ant|sk-or|sk-proj)-[A-Za-z0-9_-]{4,}/g, '$1-[redacted]')
    .replace(/(api[_-]?key["'=:\s]+)[^\s"',}]{6,}/gi, '$1[redacted]');
}

interface SdkLikeError {
  name?: string;
  message?: string;
  status?: number;
  code?: string | null;
  type?: string | null;
  error?: unknown;
  headers?: Headers | Record<string, string | undefined>;
  cause?: unknown;
}

export interface MapContext {
  target: Pick<ModelTarget, 'provider' | 'model' | 'apiKey'>;
  /** Our deadline fired. */
  timedOut: boolean;
  /** The caller's signal fired. */
  cancelled: boolean;
  timeoutMs: number;
}

/** Maps anything thrown by an SDK call (or our guarded fetch under it) to a categorised, key-free error. */
export function toModelCallError(error: unknown, ctx: MapContext): AppError {
  const label = `${ctx.target.provider} ${ctx.target.model}`;
  const make = (category: ErrorCategory, text: string, retryAfterSeconds?: number) =>
    new ModelCallError(category, scrubKeys(`${label}: ${text}`, [ctx.target.apiKey]), { retryAfterSeconds });

  if (error instanceof ModelCallError) return error;
  if (ctx.timedOut) return make('llm_timeout', `no answer within ${ctx.timeoutMs} ms`);
  if (ctx.cancelled) return new AppError('upstream-failure', `${label}: the call was cancelled`, { category: 'cancelled' });

  // A refusal of the address guard or a DNS failure, possibly wrapped by the SDK as a connection error.
  const guard = findAppError(error);
  if (guard?.category === 'ssrf_blocked') {
    return new ModelCallError('ssrf_blocked', scrubKeys(`${label}: model endpoint refused: ${guard.detail ?? guard.message}`));
  }
  if (guard) return make('llm_provider_error', `endpoint unreachable: ${guard.detail ?? guard.message}`);

  const e = (error ?? {}) as SdkLikeError;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const message = providerMessage(e);
  if (status === undefined) {
    if (e.name === 'APIConnectionTimeoutError') return make('llm_timeout', `no answer within ${ctx.timeoutMs} ms`);
    if (e.name === 'SyntaxError') return make('llm_provider_error', `malformed reply: ${message}`);
    return make('llm_provider_error', `connection failed: ${message}`);
  }
  if (isQuota(status, e, message)) return make('llm_quota_exceeded', `quota or credit exhausted (HTTP ${status}): ${message}`);
  if (status === 401 || status === 403) return make('llm_invalid_key', `the key was rejected (HTTP ${status}): ${message}`);
  if (status === 429 || status === 529) {
    return make('llm_rate_limit', `rate limited or overloaded (HTTP ${status}): ${message}`, retryAfter(e.headers));
  }
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return make('invalid_request', `the provider rejected the request (HTTP ${status}): ${message}`);
  }
  return make('llm_provider_error', `provider error (HTTP ${status}): ${message}`, status === 503 ? retryAfter(e.headers) : undefined);
}

/** OpenAI `insufficient_quota`, Anthropic "credit balance is too low" (a 400), OpenRouter 402. */
function isQuota(status: number, e: SdkLikeError, message: string): boolean {
  if (status === 402) return true;
  if (e.code === 'insufficient_quota' || bodyField(e.error, 'code') === 'insufficient_quota') return true;
  return (
    (status === 400 || status === 403 || status === 429) &&
    /credit balance|insufficient[_ ]quota|exceeded your current quota/i.test(message)
  );
}

function providerMessage(e: SdkLikeError): string {
  const fromBody = bodyField(e.error, 'message');
  const text = typeof fromBody === 'string' && fromBody ? fromBody : (e.message ?? 'unknown error');
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function bodyField(body: unknown, field: string): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (field in record) return record[field];
  const nested = record.error;
  return typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>)[field] : undefined;
}

function retryAfter(headers: SdkLikeError['headers']): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) =>
    typeof (headers as Headers).get === 'function'
      ? ((headers as Headers).get(name) ?? undefined)
      : (headers as Record<string, string>)[name];
  const ms = Number(get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && get('retry-after-ms') !== undefined) return ms / 1000;
  return parseRetryAfter(get('retry-after'));
}

function findAppError(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof AppError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
