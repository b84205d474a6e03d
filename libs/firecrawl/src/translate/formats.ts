import type { ScrapeFormat } from '@app/pages';
import { optionNotSupported } from '../wire/errors';
import { SUPPORTED_FORMATS, type FormatOption, type ScrapeOptions, type SupportedFormat } from '../wire/scrape-options';

/** What a Firecrawl request asks of each page, in Gleaner's terms (docs/firecrawl.md "Formats"). */
export interface FormatPlan {
  /** The Firecrawl formats to answer, each once. */
  wanted: ReadonlySet<SupportedFormat>;
  /** The Gleaner formats that make them; `page_info` always (Firecrawl's `metadata`). */
  gleanerFormats: ScrapeFormat[];
  fullPageScreenshot: boolean;
  /** `json`: a schema and/or a prompt (the model chain of the caller). */
  json: { schema?: Record<string, unknown>; prompt?: string } | null;
  /** `changeTracking`: compared with the tenant's previous archived copy of the page. */
  changeTracking: ChangeTrackingPlan | null;
}

/** `changeTracking`: its modes, its history (`tag`) and, for the `json` mode, the schema both copies are extracted with. */
export interface ChangeTrackingPlan {
  modes: Array<'git-diff' | 'json'>;
  tag: string | null;
  json: { schema: Record<string, unknown>; prompt?: string } | null;
}

/** Firecrawl's default: markdown. */
const DEFAULT: readonly FormatOption[] = ['markdown'];

function isSupported(name: string): name is SupportedFormat {
  return (SUPPORTED_FORMATS as readonly string[]).includes(name);
}

/**
 * Reads Firecrawl's `formats` (strings or `{type, ...}` objects, the SDK's FormatOption) into a plan. A format
 * Gleaner does not make is a 400 naming it; `json` needs a schema or a prompt (as Firecrawl's own API says).
 */
export function planFormats(options: Pick<ScrapeOptions, 'formats'>, at = 'formats'): FormatPlan {
  const wanted = new Set<SupportedFormat>();
  let fullPageScreenshot = false;
  let json: FormatPlan['json'] = null;
  let changeTracking: FormatPlan['changeTracking'] = null;
  let trackingAt = at;
  const formats = options.formats && options.formats.length > 0 ? options.formats : DEFAULT;
  formats.forEach((format, index) => {
    const where = `${at}[${index}]`;
    const raw = typeof format === 'string' ? format : format.type;
    // v1's name for a full-page screenshot, still accepted by Firecrawl.
    const name = raw === 'screenshot@fullPage' ? 'screenshot' : raw;
    if (!isSupported(name))
      throw optionNotSupported(where, `the format '${raw}' is not made by this server (it makes ${SUPPORTED_FORMATS.join(', ')})`);
    wanted.add(name);
    if (raw === 'screenshot@fullPage') fullPageScreenshot = true;
    if (typeof format === 'object') {
      const object = format as Record<string, unknown>;
      if (name === 'screenshot' && object.fullPage === true) fullPageScreenshot = true;
      if (name === 'screenshot' && object.viewport !== undefined)
        throw optionNotSupported(`${where}.viewport`, 'screenshots are 1366×900 or the full page (fullPage)');
      if (name === 'json') {
        const schema = object.schema as Record<string, unknown> | undefined;
        const prompt = typeof object.prompt === 'string' ? object.prompt : undefined;
        if (!schema && !prompt) throw optionNotSupported(where, "the json format needs a 'schema' or a 'prompt' (or both)");
        json = { ...(schema ? { schema } : {}), ...(prompt ? { prompt } : {}) };
      }
      if (name === 'changeTracking') {
        const modes = Array.isArray(object.modes) ? (object.modes as Array<'git-diff' | 'json'>) : [];
        const tag = typeof object.tag === 'string' && object.tag !== '' ? object.tag : null;
        // The json mode extracts both copies with the schema (its own, else the json format's) and compares the fields.
        const schema = (object.schema as Record<string, unknown> | undefined) ?? null;
        const prompt = typeof object.prompt === 'string' ? object.prompt : undefined;
        changeTracking = { modes, tag, json: modes.includes('json') && schema ? { schema, ...(prompt ? { prompt } : {}) } : null };
        trackingAt = where;
      }
    } else if (name === 'json') {
      throw optionNotSupported(where, "the json format is an object: {type: 'json', schema, prompt}");
    } else if (name === 'changeTracking') {
      changeTracking = { modes: [], tag: null, json: null };
    }
  });
  // The json mode's schema: the changeTracking format's own, else the json format's (both copies are compared by one schema: a prompt alone is a 400).
  const tracking = changeTracking as ChangeTrackingPlan | null;
  if (tracking?.modes.includes('json') && !tracking.json) {
    const fromJson = (json as FormatPlan['json'])?.schema;
    if (!fromJson)
      throw optionNotSupported(
        `${trackingAt}.schema`,
        "the json mode without a schema (give changeTracking a 'schema', or a json format with one)",
      );
    tracking.json = { schema: fromJson };
  }
  if (changeTracking && !wanted.has('markdown'))
    throw optionNotSupported(at, 'changeTracking compares markdown: ask for the markdown format too (as Firecrawl requires)');
  const gleaner = new Set<ScrapeFormat>(['page_info']);
  if (wanted.has('markdown') || wanted.has('summary') || wanted.has('changeTracking')) gleaner.add('markdown');
  if (wanted.has('html')) gleaner.add('html');
  if (wanted.has('rawHtml') || wanted.has('images')) gleaner.add('raw_html');
  if (wanted.has('links')) gleaner.add('links');
  if (wanted.has('screenshot')) gleaner.add('screenshot');
  return { wanted, gleanerFormats: [...gleaner], fullPageScreenshot, json, changeTracking };
}

/** Whether the plan calls the model (json or summary): such pages need a model chain and cost tokens. */
export function needsModel(plan: FormatPlan): boolean {
  return plan.json !== null || plan.wanted.has('summary');
}
