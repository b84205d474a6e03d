import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { AppError, warning, type Warning } from '@app/core';
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
import type { ChunkBudget } from './lists/list-chunks';
import type { ChunkPart } from './lists/list-extraction';
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
  /**
   * A partial call (learned extraction asks for some fields only): top-level fields of the answer the schema does
   * not ask for are dropped before validation, with a `model_extra_fields` warning, instead of failing the page.
   * Models without a strict JSON mode answer every field they saw in the prompt's history.
   */
  partial?: boolean;
  /** `content` is one chunk of a long list (docs/long-lists.md): which items it holds. */
  part?: ChunkPart;
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
  /** What the page's result should say (libs/core warnings.ts): `content_truncated` when the answering call's text was cut. */
  warnings: Warning[];
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
    let warnings: Warning[] = [];
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
              part: input.part,
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
            const answered = reply.json !== undefined ? reply.json : parseModelJson(reply.text);
            const extra = input.partial ? unaskedFields(answered, input.schema) : [];
            const raw = extra.length > 0 ? withoutFields(answered as Record<string, unknown>, extra) : answered;
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
              warnings = [
                ...(fitted.truncated ? [truncationWarning(target, fitted.tokens, fitted.totalTokens, input.excerpt)] : []),
                ...(extra.length > 0 ? [extraFieldsWarning(target, extra)] : []),
              ];
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
      return {
        ...summaryOf(result),
        data: result.value,
        target: result.target,
        contentTruncated: truncatedAny,
        content: sent,
        nulled,
        warnings,
      };
    } catch (error) {
      const appError =
        error instanceof AppError ? error : new AppError('internal-error', 'Extraction failed.', { category: 'internal', cause: error });
      this.outcomes.inc({ outcome: 'failed', error_category: appError.category ?? 'internal' });
      throw new ExtractionFailure(appError, summaryFromError(error));
    }
  }

  /** What one answer of `target` can hold: its output limit, the page text its context takes, the items asked at most. */
  chunkBudget(target: ModelTarget, itemsPerCall: number): ChunkBudget {
    return { outputTokens: target.maxTokens, contentTokens: this.contentBudget(target), itemsPerCall };
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

/** Top-level keys of an object answer that the schema does not list (partial calls ask for some fields only). */
function unaskedFields(answer: unknown, schema: JsonSchemaObject): string[] {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return [];
  const asked = schema.properties ?? {};
  return Object.keys(answer).filter((key) => !Object.prototype.hasOwnProperty.call(asked, key));
}

function withoutFields(answer: Record<string, unknown>, drop: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answer).filter(([key]) => !drop.includes(key)));
}

function extraFieldsWarning(target: ModelTarget, fields: string[]): Warning {
  const names = fields.slice(0, 10).join(', ') + (fields.length > 10 ? ` and ${fields.length - 10} more` : '');
  return warning(
    'model_extra_fields',
    `${target.provider}/${target.model} was asked for some fields only and also answered ${names}: those were dropped, the fields asked for kept.`,
  );
}

/** The answering model saw only the start of the page: values past the cut could not be extracted. */
function truncationWarning(target: ModelTarget, sent: number | null, total: number | null, excerpt?: boolean): Warning {
  const what = excerpt ? "The excerpt of the page's text" : "The page's text";
  const counts = sent !== null && total !== null ? ` (${sent} of its ${total} tokens were sent)` : '';
  return warning(
    'content_truncated',
    `${what} was cut to fit the context of ${target.provider}/${target.model}${counts}: values further down the page could not be extracted. A model with a larger context window sees more of it.`,
  );
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
