import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { AppError } from '@app/core';
import { ContentError } from './content-error';
import type { PdfTaskResult } from './pdf/convert-pdf';
import type { ConversionInput, ConversionResult, PdfConversionInput } from './types';

export interface ContentPoolOptions {
  /** Worker threads (default: available parallelism). */
  threads?: number;
  /** Per-task limit; the worker running an overdue task is terminated and replaced. */
  taskTimeoutMs?: number;
  /** Tasks waiting for a thread before `convert` rejects (default: unbounded). */
  maxQueue?: number;
  /** Environment of the worker threads (default: a copy of this process's environment). */
  env?: Record<string, string | undefined>;
  /**
   * The module the threads run (default: content.worker). Only the test harness passes another: its
   * worker adds crash and hang hooks, so no production build holds them (docs/architecture.md "Test-only code").
   */
  workerFile?: string;
}

const WORKER_FILE = join(__dirname, __filename.endsWith('.ts') ? 'content.worker.ts' : 'content.worker.js');

/**
 * Converts HTML off the event loop on a Piscina pool. Failures are typed ContentErrors: a timeout
 * aborts the task (Piscina terminates and replaces the worker), a crashed worker fails only its
 * own task, and the host process never sees either.
 */
export class ContentPool {
  private readonly pool: Piscina<ConversionInput | PdfConversionInput, ConversionResult | PdfTaskResult>;
  private readonly taskTimeoutMs: number;
  private closed = false;

  constructor(options: ContentPoolOptions = {}) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    this.taskTimeoutMs = options.taskTimeoutMs ?? 30_000;
    const filename = options.workerFile ?? WORKER_FILE;
    this.pool = new Piscina<ConversionInput | PdfConversionInput, ConversionResult | PdfTaskResult>({
      filename,
      minThreads: threads,
      maxThreads: threads,
      maxQueue: options.maxQueue ?? Infinity,
      idleTimeout: 60_000,
      env: options.env ? cleanEnv(options.env) : undefined,
      // A worker run from source (jest, tsx) needs the tsx loader; compiled .js does not.
      execArgv: filename.endsWith('.ts') ? withTsxLoader(process.execArgv) : undefined,
    });
    // Worker errors surface on the task's promise; without a listener an 'error' event would throw.
    this.pool.on('error', () => undefined);
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /**
   * One small conversion on every thread, so the first page of the process does not pay the converter's
   * first use on a cold thread (~100 ms on the development machine).
   */
  async warmUp(): Promise<void> {
    const html =
      '<html><head><title>warm-up</title></head><body><main><h1>Warm-up</h1><p>Text, a <a href="/x">link</a>.</p><ul><li>one</li></ul><table><tr><td>1</td></tr></table></main></body></html>';
    await Promise.all(Array.from({ length: this.threads }, () => this.convert({ html, url: 'http://warm-up.invalid/', mode: 'main' })));
  }

  async convert(input: ConversionInput): Promise<ConversionResult> {
    if (this.closed) throw new ContentError('pool_closed', 'The content pool is closed.');
    if (typeof input?.html !== 'string' || typeof input.url !== 'string' || (input.mode !== 'full' && input.mode !== 'main')) {
      throw new ContentError('invalid_input', 'Conversion input needs html and url strings and mode "full" or "main".');
    }
    const signal = AbortSignal.timeout(this.taskTimeoutMs);
    try {
      return (await this.pool.run(input, { signal })) as ConversionResult;
    } catch (error) {
      throw this.toContentError(error, signal);
    }
  }

  /**
   * A PDF → markdown and text, on the same threads and timeout. An encrypted, unreadable or too long
   * PDF is an AppError with its category (document_encrypted, document_invalid, content_too_large).
   */
  async convertPdf(input: PdfConversionInput): Promise<ConversionResult> {
    if (this.closed) throw new ContentError('pool_closed', 'The content pool is closed.');
    const signal = AbortSignal.timeout(this.taskTimeoutMs);
    let outcome: PdfTaskResult;
    try {
      outcome = (await this.pool.run(input, { signal, name: 'convertPdfTask' })) as PdfTaskResult;
    } catch (error) {
      throw this.toContentError(error, signal);
    }
    if ('failure' in outcome) {
      throw new AppError('upstream-failure', outcome.failure.message, { category: outcome.failure.category, retryable: false });
    }
    return outcome.result;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy();
  }

  private toContentError(error: unknown, signal: AbortSignal): ContentError {
    if (error instanceof ContentError) return error;
    if (signal.aborted) {
      return new ContentError('timeout', `HTML conversion took longer than ${this.taskTimeoutMs} ms.`, error);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (this.closed) return new ContentError('pool_closed', 'The content pool closed before the conversion finished.', error);
    if (/worker .*(exit|terminat)|exited/i.test(message)) {
      return new ContentError('worker_crashed', `The conversion worker died: ${message}`, error);
    }
    return new ContentError('conversion_failed', `HTML conversion failed: ${message}`, error);
  }
}

/** The parent's flags plus `--import tsx` exactly once. */
function withTsxLoader(execArgv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    if ((arg === '--import' || arg === '--require' || arg === '-r') && /tsx/.test(execArgv[i + 1] ?? '')) {
      i++;
      continue;
    }
    if (/^--(?:import|require)=.*tsx/.test(arg)) continue;
    out.push(arg);
  }
  return [...out, '--import', 'tsx'];
}

function cleanEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
