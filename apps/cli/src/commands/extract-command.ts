import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ApiClient } from '../api/api-client';
import type { ExtractionAnswer } from '../api/api-types';
import type { CliContext } from '../context';
import { ApiError, CliFailure, CliUsageError } from '../errors';
import { EXIT, type ExitCode } from '../exit-codes';
import { awaitJobEnd } from '../follow/await-job';
import type { CommandKit } from '../program';
import { llmConfig, numberParser, type ModelOptions, type ProvenanceOptions } from '../request-options';
import { readSchemaOption } from '../schema-input';
import { formatDuration, formatInt, formatUsd } from '../util/format';

interface ExtractOptions extends ModelOptions, ProvenanceOptions {
  schema?: string;
  schemaId?: string;
  siteId?: string;
  fetchMode?: string;
  extractionMode?: string;
  maxCost?: number;
  output?: string;
}

const HELP_AFTER = `
Prints the extracted data as JSON (with --json: the whole answer, with the
model, tokens and cost).

Examples:
  $ gleaner extract https://quotes.toscrape.com/ \\
      --schema '{"quotes": [{"text": "string", "author": "string"}]}'
  $ gleaner extract https://shop.example/p/42 --schema product.yaml \\
      --model openai/gpt-4o-mini -o product.json
  $ gleaner extract https://shop.example/p/42 --schema-id product --json | jq .usage`;

export function registerExtract(program: Command, kit: CommandKit): void {
  const command = program
    .command('extract')
    .summary('extract typed JSON from one page')
    .description('Fetches one page and has the model fill your schema (POST /api/v1/extract).')
    .argument('[url]', 'the page (optional with --site-id)');
  kit.addSchemaOptions(command);
  command
    .addOption(kit.fetchModeOption())
    .addOption(kit.extractionModeOption())
    .option('--max-cost <usd>', 'cost cap in USD for this job', numberParser('--max-cost', 0))
    .option('-o, --output <file>', 'write the JSON to this file instead of stdout');
  kit.addProvenanceOptions(command);
  kit.addModelOptions(command);
  command.addHelpText('after', HELP_AFTER).action(kit.action((ctx, [url], opts: ExtractOptions) => extract(ctx, url, opts)));
}

async function extract(ctx: CliContext, url: string | undefined, opts: ExtractOptions): Promise<ExitCode> {
  if (!url && !opts.siteId) throw new CliUsageError('a URL is required (or --site-id with a saved site)');
  if (opts.schema && opts.schemaId) throw new CliUsageError('give --schema or --schema-id, not both');
  if (!opts.schema && !opts.schemaId && !opts.siteId)
    throw new CliUsageError('--schema (a file or inline JSON/YAML) or --schema-id is required');
  const body: Record<string, unknown> = {
    url,
    schema: opts.schema !== undefined ? await readSchemaOption(opts.schema, ctx.io.stdin) : undefined,
    schema_id: opts.schemaId,
    site_id: opts.siteId,
    fetch_mode: opts.fetchMode,
    extraction_mode: opts.extractionMode,
    llm_config: llmConfig(opts, ctx),
    max_cost_usd: opts.maxCost,
    provenance: opts.provenance,
    grounding: opts.grounding,
  };
  const client = ctx.client();
  let answer: ExtractionAnswer;
  try {
    // No client timeout: the service answers within GLEANER_EXTRACT_WAIT_MS (504 with the job id after it).
    answer = (await client.json<ExtractionAnswer>('POST', '/api/v1/extract', { body, timeoutMs: 0, signal: ctx.signal })).body;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 504 && typeof error.problem.job_id === 'string')) throw error;
    ctx.info(ctx.err.yellow(`The service stopped waiting (${error.problem.detail ?? '504'}); following job ${error.problem.job_id}…`));
    answer = await finishLate(ctx, client, error.problem.job_id);
  }

  const text = `${JSON.stringify(ctx.json ? answer : answer.data, null, 2)}\n`;
  if (opts.output) {
    try {
      writeFileSync(opts.output, text);
    } catch (error) {
      throw new CliFailure(`cannot write ${opts.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  } else {
    ctx.io.stdout.write(text);
  }
  const usage = answer.usage ?? {};
  const meta = answer.metadata ?? {};
  const parts = [
    `job ${answer.job_id}`,
    meta.provider && meta.model ? `${meta.provider}/${meta.model}` : null,
    `${formatInt(usage.input_tokens ?? 0)} in / ${formatInt(usage.output_tokens ?? 0)} out tokens`,
    formatUsd(usage.cost_usd ?? 0),
    meta.fetch_duration_ms !== undefined ? `fetch ${formatDuration(meta.fetch_duration_ms)}` : null,
    meta.extract_duration_ms !== undefined ? `extract ${formatDuration(meta.extract_duration_ms)}` : null,
    // Values the model gave that are not on the page (docs/provenance.md): worth a look before they are used.
    meta.ungrounded_fields
      ? ctx.err.yellow(`${meta.ungrounded_fields} ${meta.ungrounded_fields === 1 ? 'value' : 'values'} not on the page`)
      : null,
    opts.output ? `written to ${opts.output}` : null,
  ].filter(Boolean);
  ctx.info(`${ctx.err.green('✔')} ${parts.join(ctx.err.dim(' · '))}`);
  return EXIT.ok;
}

/** The job outlived the service's wait: follow its stream to the end, then read its result. */
async function finishLate(ctx: CliContext, client: ApiClient, jobId: string): Promise<ExtractionAnswer> {
  const done = await awaitJobEnd(ctx, client, jobId, 'extraction');
  const items = (
    await client.json<Array<{ url: string; data: unknown }>>('GET', `/api/v1/jobs/${encodeURIComponent(jobId)}/results`, {
      query: { format: 'json' },
    })
  ).body;
  const extraction = done.extraction ?? {};
  return {
    job_id: jobId,
    url: items[0]?.url ?? done.url ?? '',
    fetched_at: String(extraction.fetched_at ?? done.completed_at ?? ''),
    data: items[0]?.data ?? null,
    metadata: {
      model: extraction.llm_model,
      provider: extraction.llm_provider,
      fetch_duration_ms: extraction.fetch_duration_ms,
      extract_duration_ms: extraction.extract_duration_ms,
    },
    usage: { input_tokens: done.token_usage_input, output_tokens: done.token_usage_output, cost_usd: done.cost_usd },
  };
}
