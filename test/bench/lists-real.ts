/**
 * `npm run bench:lists`, real pages (docs/long-lists.md "Benchmark"): 31 listing and collection pages of WCXB dev,
 * vendored with their hand-counted item counts in test/fixtures/corpus/wcxb-lists (labels.json, ORIGIN.md says how
 * they were counted). For each page: the count Gleaner finds for a generic list schema (precision and recall of the
 * expected count against the label), and what the chunked extraction with the stand-in model capped at 50 items per
 * answer returns (item recall against the label, the label's first and last item found, `complete` honest).
 * The stand-in model reads only tables, top-level lists and sections (test/fixtures/model-server/list-reader.ts):
 * items a real page renders as runs of paragraphs or links it does not read, so extraction recall here is a floor of
 * what the pipeline hands a model, not a model's quality.
 */
import { convertHtml } from '../../libs/content/src/convert-html';
import type { ExtractOutput } from '../../libs/extraction/src/extraction.service';
import { extractLists, type ChunkPart } from '../../libs/extraction/src/lists/list-extraction';
import { pageLists } from '../../libs/extraction/src/lists/list-paths';
import type { JsonSchemaObject } from '../../libs/schema/src';
import { labelledHtml, loadLabels, REAL_SCHEMA } from '../fixtures/wcxb-lists';

/** Lower-cased letters and digits only: the label's text and the answer's compared whatever the markup between. */
function plain(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Whether the label's item text (its first 24 letters and digits) is in any answered item. */
function found(label: string, answered: unknown[]): boolean {
  const key = plain(label).slice(0, 24);
  return answered.some((item) => plain(JSON.stringify(item)).includes(key));
}

export interface RealRow {
  page: string;
  url: string;
  labelled: number;
  /** The count Gleaner found (null: no repeated structure for the list). */
  expected: number | null;
  /** The chosen group holds the label's first item (it is the page's main list, not a menu of the same size). */
  group_is_list: boolean;
  extracted: number;
  calls: number;
  first_found: boolean;
  last_found: boolean;
  complete: boolean | null;
  /** The answer says another repeated structure competes with the group counted (`expected_uncertain`). */
  uncertain: boolean;
  /**
   * `complete: true` only when at least the labelled number of items was extracted (which items the stand-in model
   * answered is its matter: `first_found`/`last_found` say whether the label's ends are among them).
   */
  complete_honest: boolean;
}

type Ask = (schema: JsonSchemaObject, content: string, part: ChunkPart | null) => Promise<ExtractOutput>;

export async function realPages(ask: Ask, cap: number, only?: number): Promise<{ rows: RealRow[]; summary: Record<string, unknown> }> {
  const rows: RealRow[] = [];
  for (const label of loadLabels().slice(0, only)) {
    const html = labelledHtml(label);
    const markdown = convertHtml({ html, url: label.url, mode: 'full' }).markdown;
    const lists = pageLists(markdown, REAL_SCHEMA);
    const group = lists[0].group;
    const groupText = group ? markdown.slice(group.items[0].start, group.items[group.items.length - 1].end) : '';
    const run = await extractLists({
      markdown,
      lists,
      budget: { outputTokens: 16_384, contentTokens: 100_000, itemsPerCall: cap },
      call: (content, part) => ask(REAL_SCHEMA, content, part),
    });
    const answered = ((run.data as Record<string, unknown> | null)?.items ?? []) as unknown[];
    const report = run.items[0];
    const row: RealRow = {
      page: label.file.replace(/^html\/|\.html\.gz$/g, ''),
      url: label.url,
      labelled: label.items,
      expected: group ? group.items.length : null,
      group_is_list: group !== null && plain(groupText).includes(plain(label.first).slice(0, 24)),
      extracted: answered.length,
      calls: run.outs.length,
      first_found: found(label.first, answered),
      last_found: found(label.last, answered),
      complete: report.complete,
      uncertain: report.expected_uncertain === true,
      complete_honest: report.complete !== true || answered.length >= label.items,
    };
    rows.push(row);
    console.log(
      `${row.page} ${label.url.slice(0, 48).padEnd(48)} labelled ${String(row.labelled).padStart(3)}  expected ${String(row.expected).padStart(4)}` +
        `${row.group_is_list ? '' : ' (other list)'}  extracted ${String(row.extracted).padStart(3)} in ${row.calls}  first ${row.first_found ? 'y' : 'n'} last ${row.last_found ? 'y' : 'n'}` +
        `  complete ${row.complete}${row.uncertain ? ' (count uncertain)' : ''}${row.complete_honest ? '' : ' (WRONG)'}`,
    );
  }
  return { rows, summary: realSummary(rows) };
}

/**
 * Precision and recall of the expected count, summed over pages (a count is right up to the smaller of it and the
 * label: counted 12 of 10 is 10 right of 12 counted; a count from another group of the page is 0 right), the share
 * of pages counted exactly, and the extracted items against the labels (extracted, up to the label, over labelled: a
 * count, not the items' identity, which only the first and last item's are checked for).
 */
export function realSummary(rows: RealRow[]): Record<string, unknown> {
  const labelled = rows.reduce((n, r) => n + r.labelled, 0);
  const counted = rows.reduce((n, r) => n + (r.expected ?? 0), 0);
  const right = rows.reduce((n, r) => n + (r.group_is_list ? Math.min(r.expected ?? 0, r.labelled) : 0), 0);
  const extractedRight = rows.reduce((n, r) => n + Math.min(r.extracted, r.labelled), 0);
  return {
    pages: rows.length,
    labelled_items: labelled,
    count_precision: counted === 0 ? null : right / counted,
    count_recall: labelled === 0 ? null : right / labelled,
    pages_counted_exactly: rows.filter((r) => r.group_is_list && r.expected === r.labelled).length,
    pages_without_count: rows.filter((r) => r.expected === null).length,
    pages_counting_another_list: rows.filter((r) => r.expected !== null && !r.group_is_list).length,
    extracted_count_recall: labelled === 0 ? null : extractedRight / labelled,
    pages_first_and_last_found: rows.filter((r) => r.first_found && r.last_found).length,
    pages_complete_true: rows.filter((r) => r.complete === true).length,
    pages_count_uncertain: rows.filter((r) => r.uncertain).length,
    // Of the pages whose count is not the labelled list's exactly, those the answer says are uncertain.
    wrong_counts_said_uncertain: rows.filter((r) => r.uncertain && !(r.group_is_list && r.expected === r.labelled)).length,
    wrong_counts: rows.filter((r) => !(r.group_is_list && r.expected === r.labelled)).length,
    complete_wrong: rows.filter((r) => !r.complete_honest).length,
  };
}
