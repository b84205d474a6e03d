/**
 * The learned-extraction benchmark's corpus: the SWDE book pages and the articles of $GLEANER_CORPUS_DIR
 * (content-corpus.ts), the schemas they are extracted with, their ground truth as the model's answer,
 * the drifted template, and field-level agreement with the ground truth.
 */
import * as cheerio from 'cheerio';
import type { JsonSchemaObject } from '../../../libs/schema/src';
import { planFields, valuesAgree } from '../../../libs/learned/src';
import type { SwdeCase } from '../content-corpus';

/** One run of bench-results/learned.json (the shape; extra fields welcome). */
export interface Run {
  corpus: string;
  site: string;
  mode: 'model' | 'auto';
  pages: number;
  model_calls_per_page: number;
  agreement: number;
  [key: string]: unknown;
}

export const BOOK_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    title: { type: ['string', 'null'] },
    author: { type: ['array', 'null'], items: { type: 'string' } },
    isbn_13: { type: ['string', 'null'] },
    publisher: { type: ['string', 'null'] },
    publication_date: { type: ['string', 'null'] },
  },
  required: ['title', 'author', 'isbn_13', 'publisher', 'publication_date'],
  additionalProperties: false,
};

export const ARTICLE_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: { article_body: { type: 'string' } },
  required: ['article_body'],
  additionalProperties: false,
};

/** A page of the benchmark: where it is served (path), its HTML and what a perfect model answers for it. */
export interface BenchPage {
  path: string;
  html: string;
  truth: Record<string, unknown>;
}

export function bookTruth(c: SwdeCase): Record<string, unknown> {
  const v = c.values;
  return {
    title: v.title?.[0] ?? null,
    author: v.author ?? [],
    isbn_13: v.isbn_13?.[0] ?? null,
    publisher: v.publisher?.[0] ?? null,
    publication_date: v.publication_date?.[0] ?? null,
  };
}

/** The drifted template: every class renamed, every list and the heading block reordered. */
export function drift(html: string): string {
  // htmlparser2 (as the service parses), so the re-serialised page keeps its original block structure.
  const $ = cheerio.load(html, { xml: { xmlMode: false, decodeEntities: false } });
  $('[class]').each((_, el) => {
    const classes = ($(el).attr('class') ?? '').split(/\s+/).filter(Boolean);
    $(el).attr('class', classes.map((c) => `v2-${c}`).join(' '));
  });
  $('ul, ol').each((_, list) => {
    const items = $(list).children('li').toArray();
    $(list).append(items.reverse());
  });
  $('h2').each((_, heading) => {
    const next = $(heading).nextAll('h3').first();
    if (next.length > 0) $(heading).before(next);
  });
  return $.html();
}

/** Field-level agreement of one page's data with its ground truth (the learned lib's comparison). */
export function agreement(schema: JsonSchemaObject, data: unknown, truth: Record<string, unknown>): { agree: number; wrong: string[] } {
  const record = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  let agree = 0;
  const wrong: string[] = [];
  for (const field of planFields(schema).fields) {
    if (valuesAgree(field, record[field.name], truth[field.name])) agree++;
    else wrong.push(field.name);
  }
  return { agree, wrong };
}

export function fieldCount(schema: JsonSchemaObject): number {
  return planFields(schema).fields.length;
}

export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
