/**
 * The CPU cost of grounding per page, in process: the page's grounding (its index built, every value of the
 * answer checked, `metadata.fields` made) against the anchor measured in the same run, the HTML → markdown
 * conversion every extracted page goes through anyway. Rounds alternate the two; each is the process's CPU time
 * (process.cpuUsage) over all pages; the median round counts. Also the size `metadata.fields` adds per page in
 * each provenance mode, next to the size of the data itself.
 */
import { convertHtml, type ConversionResult } from '../../../libs/content/src';
import { PageGrounding, groundData, type ProvenanceMode } from '../../../libs/provenance/src';
import type { JsonSchemaObject } from '../../../libs/schema/src';

export interface CostPage {
  url: string;
  html: string;
  answer: Record<string, unknown>;
  schema: JsonSchemaObject;
}

export interface CostResult {
  pages: number;
  rounds: number;
  /** CPU ms per page, median round. */
  conversion_ms_per_page: number;
  grounding_ms_per_page: number;
  /** grounding / conversion. */
  grounding_vs_conversion: number;
  rounds_ms: Array<{ conversion: number; grounding: number }>;
  /** Mean bytes per page: the data, and metadata.fields in each mode. */
  bytes_per_page: { data: number; summary: number; full: number };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

export function measureCost(pages: CostPage[], rounds: number): CostResult & { converted: ConversionResult[] } {
  const convert = (p: CostPage) => convertHtml({ html: p.html, url: p.url, mode: 'full', also: { attributes: true } });
  const converted = pages.map(convert);
  const ground = (i: number, provenance: ProvenanceMode) => {
    const p = pages[i];
    const c = converted[i];
    const page = new PageGrounding({ url: p.url, text: c.markdown, title: c.metadata.title, attributes: c.attributes });
    return groundData({
      data: p.answer,
      schema: p.schema,
      origin: () => ({ source: 'model', index: page.pageText }),
      settings: { provenance, grounding: 'report' },
      baseUrl: p.url,
    });
  };
  const measured: Array<{ conversion: number; grounding: number }> = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['conversion', 'grounding'] as const) : (['grounding', 'conversion'] as const);
    const round = { conversion: 0, grounding: 0 };
    for (const phase of order) {
      const since = process.cpuUsage();
      if (phase === 'conversion') for (const p of pages) convert(p);
      else for (let i = 0; i < pages.length; i++) ground(i, 'full');
      round[phase] = cpuMs(since);
    }
    measured.push(round);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const conversion = median(measured.map((m) => m.conversion)) / pages.length;
  const grounding = median(measured.map((m) => m.grounding)) / pages.length;
  let data = 0;
  let summary = 0;
  let full = 0;
  for (let i = 0; i < pages.length; i++) {
    data += Buffer.byteLength(JSON.stringify(pages[i].answer));
    summary += Buffer.byteLength(JSON.stringify(ground(i, 'summary').fields));
    full += Buffer.byteLength(JSON.stringify(ground(i, 'full').fields));
  }
  const round1 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    pages: pages.length,
    rounds,
    conversion_ms_per_page: round1(conversion),
    grounding_ms_per_page: round1(grounding),
    grounding_vs_conversion: round1(grounding / conversion),
    rounds_ms: measured.map((m) => ({ conversion: Math.round(m.conversion), grounding: Math.round(m.grounding) })),
    bytes_per_page: {
      data: Math.round(data / pages.length),
      summary: Math.round(summary / pages.length),
      full: Math.round(full / pages.length),
    },
    converted,
  };
}
