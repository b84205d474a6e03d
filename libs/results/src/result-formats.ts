import { stringify as yamlStringify } from 'yaml';
import { AppError } from '@app/core';

export const RESULT_FORMATS = ['json', 'jsonl', 'yaml'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/** The content type each format is served with. */
export const FORMAT_CONTENT_TYPES: Record<ResultFormat, string> = {
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  yaml: 'application/yaml',
};

export const FORMAT_EXTENSIONS: Record<ResultFormat, string> = { json: 'json', jsonl: 'jsonl', yaml: 'yaml' };

/** Media types understood in `Accept`, in the server's order of preference. */
const ACCEPTED_MEDIA: ReadonlyArray<readonly [string, ResultFormat]> = [
  ['application/json', 'json'],
  ['application/x-ndjson', 'jsonl'],
  ['application/jsonl', 'jsonl'],
  ['application/yaml', 'yaml'],
  ['application/x-yaml', 'yaml'],
  ['text/yaml', 'yaml'],
];

export function isResultFormat(value: string): value is ResultFormat {
  return (RESULT_FORMATS as readonly string[]).includes(value);
}

function notAcceptable(detail: string): AppError {
  return new AppError('not-acceptable', detail, { extensions: { supported_formats: [...RESULT_FORMATS] } });
}

/** `format=` value → format, or a 406 for anything else. */
export function parseFormat(value: string): ResultFormat {
  const format = value.trim().toLowerCase();
  if (!isResultFormat(format)) throw notAcceptable(`Unsupported format "${value}"; use json, jsonl or yaml.`);
  return format;
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mediaType, ...params] = part.split(';').map((s) => s.trim());
    const [type, subtype] = mediaType.toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/**
 * Content negotiation (RFC 9110 §12.5.1): for each format, the q of the most specific range that
 * matches one of its media types; the highest q wins, then the more specific match (an explicit
 * `application/x-ndjson` beats `*\/*`), then the server's order (json, jsonl, yaml). No header → json.
 * Nothing acceptable → 406.
 */
export function negotiateFormat(accept: string | undefined): ResultFormat {
  if (!accept || !accept.trim()) return 'json';
  const ranges = parseAccept(accept);
  let best: { format: ResultFormat; q: number; specificity: number; order: number } | null = null;
  ACCEPTED_MEDIA.forEach(([media, format], order) => {
    const [type, subtype] = media.split('/');
    let match: { q: number; specificity: number } | null = null;
    for (const range of ranges) {
      const specificity =
        range.type === type && range.subtype === subtype
          ? 2
          : range.type === type && range.subtype === '*'
            ? 1
            : range.type === '*'
              ? 0
              : -1;
      if (specificity >= 0 && (!match || specificity > match.specificity)) match = { q: range.q, specificity };
    }
    if (!match || match.q <= 0) return;
    if (!best || match.q > best.q || (match.q === best.q && match.specificity > best.specificity)) {
      best = { format, q: match.q, specificity: match.specificity, order };
    }
  });
  const chosen = best as { format: ResultFormat } | null;
  if (!chosen)
    throw notAcceptable(
      `None of the accepted media types (${accept}) is available; use application/json, application/x-ndjson or application/yaml.`,
    );
  return chosen.format;
}

/** `format=` wins over `Accept`. */
export function chooseFormat(formatParam: string | undefined, accept: string | undefined): ResultFormat {
  return formatParam !== undefined ? parseFormat(formatParam) : negotiateFormat(accept);
}

/** One item's text in a body: `first` says whether it opens the list (JSON arrays separate the others by a comma). */
function itemText(item: unknown, format: ResultFormat, first: boolean): string {
  const value = item === undefined ? null : item;
  if (format === 'json') return (first ? '' : ',') + JSON.stringify(value);
  if (format === 'jsonl') return `${JSON.stringify(value)}\n`;
  return yamlStringify([value], { lineWidth: 0 });
}

const OPENING: Record<ResultFormat, string> = { json: '[', jsonl: '', yaml: '' };
const CLOSING: Record<ResultFormat, string> = { json: ']\n', jsonl: '', yaml: '' };
const EMPTY_CLOSING: Record<ResultFormat, string> = { json: ']\n', jsonl: '', yaml: '[]\n' };

/**
 * Serialises items one at a time: a JSON array, JSON lines, or a YAML block sequence whose entries
 * are rendered per item (`- ` + the item indented), so no format needs the whole list in memory.
 */
export async function* serializeItems(items: AsyncIterable<unknown>, format: ResultFormat): AsyncIterable<string> {
  let first = true;
  if (OPENING[format]) yield OPENING[format];
  for await (const item of items) {
    yield itemText(item, format, first);
    first = false;
  }
  const closing = first ? EMPTY_CLOSING[format] : CLOSING[format];
  if (closing) yield closing;
}

/** The same text as serializeItems, at once, for items already in memory (one store batch). */
export function serializeAll(items: readonly unknown[], format: ResultFormat): string {
  let text = OPENING[format];
  for (let i = 0; i < items.length; i++) text += itemText(items[i], format, i === 0);
  return text + (items.length === 0 ? EMPTY_CLOSING[format] : CLOSING[format]);
}
