import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { AppError } from '@app/core';
import {
  ModelRouter,
  PriceTable,
  type AttemptRecord,
  type LlmConfigInput,
  type ModelCall,
  type ModelTarget,
  type RunSummary,
} from '@app/llm';
import { METRICS, Metrics } from '@app/observability';
import { compileValidator, type JsonSchemaObject } from '@app/schema';
import { coerceToSchema, type CoercedToNull } from './coerce';
import { buildExtractionPrompt } from './prompt';
import { parseModelJson } from './reply-parser';
import { fitToTokens } from './token-budget';

/** Tokens kept free for the instructions and the schema on top of the page content. */
const PROMPT_OVERHEAD_TOKENS = 1_500;
const DEFAULT_CONTEXT_TOKENS = 32_000;

export interface ExtractInput {
  userId: string;
  url: string;
  content: string;
  schema: JsonSchemaObject;
  llmConfig?: LlmConfigInput;
  signal?: AbortSignal;
  /** Called once per model call with what was sent and how it went (debug captures). */
  onCall?: (call: CallTrace) => Promise<void>;
  instructions?: string;
  /** `content` is an excerpt of the page (learned extraction's partial calls), not the whole page. */
  excerpt?: boolean;
}

export interface CallTrace {
  target: ModelTarget;
  prompt: string;
  content: string;
  promptSize: number;
  contentSize: number;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  success: boolean;
  error: string | null;
}

export interface ExtractOutput extends RunSummary {
  data: unknown;
  target: ModelTarget;
  contentTruncated: boolean;
  /** The content the answering model was given (the page or excerpt, cut to its context): what its values are grounded on. */
  content: string;
  /** Values of the answer that coercion replaced by null (docs/provenance.md "Reasons"). */
  nulled: CoercedToNull[];
}

/** Failure of a whole extraction, with what the failed attempts cost (they were billed). */
export class ExtractionFailure extends AppError {
  constructor(
    cause: AppError,
    readonly summary: RunSummary | null,
  ) {
    super(cause.slug, cause.message, {
      detail: cause.detail,
      category: cause.category,
      retryable: false,
      retryAfterSeconds: cause.retryAfterSeconds,
    });
  }
}

/**
 * Page content + schema in, validated JSON out: fits the content to the model's context by real
 * token counts, asks the chain (with its fallback policy), parses and repairs the reply, coerces
 * obvious forms, validates, and re-prompts once with the validation errors before giving up
 * with llm_invalid_output (which moves the chain to its next entry).
 */
@Injectable()
export class ExtractionService {
  private readonly outcomes: Counter<'outcome' | 'error_category'>;

  constructor(
    private readonly router: ModelRouter,
    private readonly prices: PriceTable,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.outcomes = metrics.once(
      'gleaner_extractions_total',
      () =>
        new Counter({
          name: 'gleaner_extractions_total',
          help: 'Extractions of page content by a model, by outcome (success, failed) and error_category (empty on success). Unit: extractions.',
          labelNames: ['outcome', 'error_category'],
          registers: [metrics.registry],
        }),
    );
  }

  plan(userId: string, llmConfig?: LlmConfigInput): Promise<ModelTarget[]> {
    return this.router.plan({ userId }, llmConfig);
  }

  async extract(input: ExtractInput, plan?: ModelTarget[]): Promise<ExtractOutput> {
    const targets = plan ?? (await this.plan(input.userId, input.llmConfig));
    const validate = compileValidator(input.schema);
    let truncatedAny = false;
    // The content of the call whose answer is returned (the last target's: an earlier one that failed was cut to its own context).
    let sent = input.content;
    let nulled: CoercedToNull[] = [];
    try {
      const result = await this.router.run(
        targets,
        async (target: ModelTarget, call: ModelCall) => {
          const budget = this.contentBudget(target);
          const fitted = fitToTokens(input.content, budget);
          truncatedAny ||= fitted.truncated;
          let errors: string[] | undefined;
          for (let round = 0; round < 2; round++) {
            const prompt = buildExtractionPrompt({
              url: input.url,
              schema: input.schema,
              content: fitted.text,
              truncated: fitted.truncated,
              validationErrors: errors,
              instructions: input.instructions,
              excerpt: input.excerpt,
            });
            const started = Date.now();
            let reply;
            try {
              reply = await call({
                system: prompt.system,
                user: prompt.user,
                schema: input.schema,
                schemaName: 'extraction',
                signal: input.signal,
              });
            } catch (error) {
              await input.onCall?.(
                trace(
                  target,
                  prompt.user,
                  fitted.text,
                  Date.now() - started,
                  0,
                  0,
                  false,
                  error instanceof AppError ? (error.detail ?? error.message) : 'model call failed',
                ),
              );
              throw error;
            }
            const raw = reply.json !== undefined ? reply.json : parseModelJson(reply.text);
            const nulledHere: CoercedToNull[] = [];
            const data = raw === undefined ? undefined : coerceToSchema(raw, input.schema, input.url, nulledHere);
            const verdict =
              data === undefined ? { valid: false, errors: [{ path: '$', message: 'the reply is not JSON' }] } : validate(data);
            await input.onCall?.(
              trace(
                target,
                prompt.user,
                fitted.text,
                reply.durationMs,
                reply.usage.inputTokens,
                reply.usage.outputTokens,
                verdict.valid,
                verdict.valid ? null : verdict.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
              ),
            );
            if (verdict.valid) {
              sent = fitted.text;
              nulled = nulledHere;
              return data;
            }
            errors = verdict.errors.slice(0, 20).map((e) => `${e.path}: ${e.message}`);
          }
          throw new AppError('upstream-failure', `The model's reply did not match the schema: ${errors!.slice(0, 3).join('; ')}`, {
            category: 'llm_invalid_output',
          });
        },
        { signal: input.signal },
      );
      this.outcomes.inc({ outcome: 'success', error_category: '' });
      return { ...summaryOf(result), data: result.value, target: result.target, contentTruncated: truncatedAny, content: sent, nulled };
    } catch (error) {
      const appError =
        error instanceof AppError ? error : new AppError('internal-error', 'Extraction failed.', { category: 'internal', cause: error });
      this.outcomes.inc({ outcome: 'failed', error_category: appError.category ?? 'internal' });
      throw new ExtractionFailure(appError, summaryFromError(error));
    }
  }

  private contentBudget(target: ModelTarget): number {
    const context = this.prices.price(target.provider, target.model)?.context_tokens ?? DEFAULT_CONTEXT_TOKENS;
    return Math.max(1_000, context - target.maxTokens - PROMPT_OVERHEAD_TOKENS);
  }
}

function trace(
  target: ModelTarget,
  prompt: string,
  content: string,
  durationMs: number,
  inputTokens: number,
  outputTokens: number,
  success: boolean,
  error: string | null,
): CallTrace {
  return {
    target,
    prompt,
    content,
    promptSize: prompt.length,
    contentSize: content.length,
    durationMs,
    inputTokens,
    outputTokens,
    success,
    error,
  };
}

function summaryOf(result: RunSummary): RunSummary {
  return { attempts: result.attempts, usage: result.usage, llmCostUsd: result.llmCostUsd, costUsd: result.costUsd, isByok: result.isByok };
}

/** The router attaches its run summary (`ModelRunError.run`) to the error it throws when every entry failed. */
function summaryFromError(error: unknown): RunSummary | null {
  const summary = (error as { run?: RunSummary } | null)?.run;
  return summary && Array.isArray(summary.attempts) ? summary : null;
}

export type { AttemptRecord };
