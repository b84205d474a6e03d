/**
 * `npm run bench:lists` (docs/long-lists.md): item recall, precision, order, duplicates, model calls and tokens of
 * Gleaner's long-list extraction against a single-shot call, on generated catalogues of 20, 200 and 2,000 items in
 * four layouts, a two-list page and the quotes corpus page, with a stand-in model capped at 50 items per answer.
 * The model is the local model server (test/fixtures/model-server): it reads the items it is given and stops after
 * 50, so this measures Gleaner's counting, chunking and merging, not a model's quality. Writes bench-results/lists.json.
 * Pages are converted as the pipeline converts them for their job: the whole page for an extract or a crawl with a
 * schema, the main content for the `json` format (only_main_content, its default), whose lists are then also counted
 * on the whole page (libs/extraction/src/lists/whole-page.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ModelTarget } from '../../libs/llm/src';
import { convertHtml } from '../../libs/content/src/convert-html';
import type { ExtractOutput } from '../../libs/extraction/src/extraction.service';
import { extractLists, type ChunkPart } from '../../libs/extraction/src/lists/list-extraction';
import { pageLists } from '../../libs/extraction/src/lists/list-paths';
import { wholePageCounts, withWholePage } from '../../libs/extraction/src/lists/whole-page';
import { buildExtractionPrompt } from '../../libs/extraction/src/prompt';
import type { JsonSchemaObject } from '../../libs/schema/src';
import { startModelServer } from '../fixtures/model-server';
import { realPages } from './lists-real';
import { LIST_LAYOUTS, LIST_SCHEMA, listPage, products, TWO_LIST_SCHEMA } from '../fixtures/long-lists';
import { allQuotes } from '../fixtures/site/quotes-data';
import { quotesPage } from '../fixtures/site/render';

const CAP = 50;
const MODEL = `gpt-4o-mini+items-${CAP}`;
const QUOTES_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    quotes: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' }, author: { type: 'string' } } } },
  },
};

const REAL_NOTE =
  'Hand-labelled WCXB listing and collection pages (test/fixtures/corpus/wcxb-lists), stand-in model capped at 50 items per answer: ' +
  "the count is Gleaner's; extraction recall is what the stand-in model reads of the text Gleaner gives it (tables, lists, sections), a floor, not a model's quality.";

interface Case {
  name: string;
  html: string;
  schema: JsonSchemaObject;
  path: string;
  /** The item identities in page order, and how to read one from an answered item. */
  truth: string[];
  idOf: (item: Record<string, unknown>) => string;
  /** `full`: an extract's or a schema crawl's text; `main`: the json format's (only_main_content). */
  conversion: 'full' | 'main';
}

function cases(): Case[] {
  const out: Case[] = [];
  // LISTS_SIZES=20,200 limits the generated pages' sizes (a quick run of the generated section).
  const sizes = process.env.LISTS_SIZES ? process.env.LISTS_SIZES.split(',').map(Number) : [20, 200, 2000];
  for (const count of sizes)
    for (const layout of LIST_LAYOUTS)
      out.push({
        name: `${layout} ${count}`,
        html: listPage(layout, count),
        schema: LIST_SCHEMA,
        path: 'products',
        truth: products(count).map((p) => p.sku),
        idOf: (i) => String(i.sku),
        conversion: 'full',
      });
  out.push({
    name: 'two lists 200',
    html: listPage('cards', 200, { withArticles: 5 }),
    schema: TWO_LIST_SCHEMA,
    path: 'products',
    truth: products(200).map((p) => p.sku),
    idOf: (i) => String(i.sku),
    conversion: 'full',
  });
  const quotes = allQuotes();
  for (const conversion of ['full', 'main'] as const)
    out.push({
      name: `quotes corpus ${quotes.length}${conversion === 'main' ? ' (main)' : ''}`,
      html: quotesPage('Quotes', quotes, '/page/', 1, false),
      schema: QUOTES_SCHEMA,
      path: 'quotes',
      truth: quotes.map((q) => q.text),
      idOf: (i) => String(i.text),
      conversion,
    });
  return out;
}

function score(c: Case, answered: Array<Record<string, unknown>>) {
  const ids = answered.map(c.idOf);
  const truth = new Map(c.truth.map((id, i) => [id, i]));
  const found = new Set(ids.filter((id) => truth.has(id)));
  const positions = ids.filter((id) => truth.has(id)).map((id) => truth.get(id)!);
  let ordered = 0;
  for (let i = 1; i < positions.length; i++) if (positions[i] > positions[i - 1]) ordered++;
  return {
    recall: found.size / c.truth.length,
    precision: ids.length === 0 ? 1 : ids.filter((id) => truth.has(id)).length / ids.length,
    order: positions.length < 2 ? 1 : ordered / (positions.length - 1),
    duplicates: ids.length - new Set(ids).size,
  };
}

async function main(): Promise<void> {
  const server = await startModelServer();
  const client = new OpenAI({ apiKey: 'sk-bench', baseURL: server.openaiBaseUrl, maxRetries: 0 });
  const target = { provider: 'openai', model: MODEL, maxTokens: 16_384 } as ModelTarget;
  const ask = async (schema: JsonSchemaObject, content: string, part: ChunkPart | null): Promise<ExtractOutput> => {
    const prompt = buildExtractionPrompt({
      url: 'http://lists.test/',
      schema,
      content,
      truncated: false,
      ...(part ? { part } : {}),
    });
    const reply = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'extraction', schema: schema as Record<string, unknown> } },
      max_tokens: target.maxTokens,
    });
    const usage = { inputTokens: reply.usage?.prompt_tokens ?? 0, outputTokens: reply.usage?.completion_tokens ?? 0 };
    return {
      data: JSON.parse(reply.choices[0].message.content ?? 'null'),
      target,
      contentTruncated: false,
      content,
      nulled: [],
      warnings: [],
      attempts: [],
      usage,
      llmCostUsd: 0,
      costUsd: 0,
      isByok: false,
    };
  };
  const rows = [];
  let real: Awaited<ReturnType<typeof realPages>> | null = null;
  try {
    // LISTS_BENCH=real runs only the hand-labelled real pages (LISTS_REAL_PAGES=n: the first n of them).
    if (process.env.LISTS_BENCH !== 'real')
      for (const c of cases()) {
        const markdown = convertHtml({ html: c.html, url: 'http://lists.test/', mode: c.conversion }).markdown;
        const lists = pageLists(markdown, c.schema);
        const single = await ask(c.schema, markdown, null);
        const singleItems = ((single.data as Record<string, unknown>)[c.path] ?? []) as Array<Record<string, unknown>>;
        const run = await extractLists({
          markdown,
          lists,
          budget: { outputTokens: 16_384, contentTokens: 100_000, itemsPerCall: CAP },
          call: (content, part) => ask(c.schema, content, part),
        });
        const items = ((run.data as Record<string, unknown>)[c.path] ?? []) as Array<Record<string, unknown>>;
        // The json format's main content: its lists counted on the whole page too, as the pipeline does.
        const reports =
          c.conversion === 'main'
            ? withWholePage(
                run.items,
                wholePageCounts(markdown, convertHtml({ html: c.html, url: 'http://lists.test/', mode: 'full' }).markdown, lists),
              ).items
            : run.items;
        const report = reports.find((r) => r.path === c.path)!;
        const chunked = score(c, items);
        const minimum = Math.ceil(c.truth.length / CAP);
        rows.push({
          page: c.name,
          conversion: c.conversion,
          items: c.truth.length,
          expected: report.expected,
          single_shot: { ...score(c, singleItems), input_tokens: single.usage.inputTokens },
          gleaner: {
            ...chunked,
            calls: run.outs.length,
            minimum_calls: minimum,
            calls_over_minimum: run.outs.length / minimum,
            input_tokens: run.outs.reduce((n, o) => n + o.usage.inputTokens, 0),
            output_tokens: run.outs.reduce((n, o) => n + o.usage.outputTokens, 0),
            complete: report.complete,
            complete_correct: report.complete === (chunked.recall === 1),
          },
        });
        const r = rows[rows.length - 1];
        console.log(
          `${c.name.padEnd(20)} expected ${String(report.expected).padStart(5)}  single-shot recall ${(r.single_shot.recall * 100).toFixed(1).padStart(5)} %  ` +
            `gleaner recall ${(chunked.recall * 100).toFixed(1).padStart(5)} %  precision ${(chunked.precision * 100).toFixed(1)} %  order ${(chunked.order * 100).toFixed(1)} %  ` +
            `duplicates ${chunked.duplicates}  calls ${run.outs.length}/${minimum}  complete ${report.complete} (${r.gleaner.complete_correct ? 'right' : 'WRONG'})`,
        );
      }
    // LISTS_BENCH=generated runs only the generated pages (nothing is written: a check, not a result).
    if (process.env.LISTS_BENCH !== 'generated') {
      console.log('Real pages (WCXB dev listing and collection pages, item counts labelled by hand):');
      const only = process.env.LISTS_REAL_PAGES ? Number(process.env.LISTS_REAL_PAGES) : undefined;
      real = await realPages(ask, CAP, only);
      console.log(JSON.stringify(real.summary));
      writeFileSync(
        join(__dirname, '../../bench-results/lists-real.json'),
        JSON.stringify({ at: new Date().toISOString(), note: REAL_NOTE, summary: real.summary, rows: real.rows }, null, 2) + '\n',
      );
    }
  } finally {
    await server.close();
  }
  if (rows.length === 0) return;
  const partial = process.env.LISTS_BENCH === 'generated' || process.env.LISTS_SIZES !== undefined;
  const summary = {
    note: 'Stand-in model (local model server) capped at 50 items per answer: this measures counting, chunking and merging, not a model.',
    // Over the pages read whole; a main-content page's items outside its main content are not in the text the model
    // reads: that row checks that the answer says so (complete false), listed beside.
    min_recall: Math.min(...rows.filter((r) => r.conversion === 'full').map((r) => r.gleaner.recall)),
    main_content: rows
      .filter((r) => r.conversion === 'main')
      .map((r) => ({ page: r.page, expected: r.expected, recall: r.gleaner.recall, complete: r.gleaner.complete })),
    duplicates: rows.reduce((n, r) => n + r.gleaner.duplicates, 0),
    complete_wrong: rows.filter((r) => !r.gleaner.complete_correct).length,
    max_calls_over_minimum: Math.max(...rows.map((r) => r.gleaner.calls_over_minimum)),
    real_pages: real?.summary ?? null,
  };
  console.log(JSON.stringify(summary));
  if (partial) return;
  writeFileSync(
    join(__dirname, '../../bench-results/lists.json'),
    JSON.stringify({ at: new Date().toISOString(), summary, rows }, null, 2) + '\n',
  );
}

void main();
