/**
 * Which bodies Gleaner reads: HTML/XHTML, text, JSON and XML, and PDF where the caller accepts it
 * (page loads; docs/scrape.md "PDFs"). Everything else is unsupported_content.
 */
export type ContentKind = 'html' | 'xml' | 'json' | 'text' | 'pdf';

const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf', 'application/acrobat', 'applications/vnd.pdf', 'text/pdf']);

export function isPdfMediaType(type: string): boolean {
  return PDF_TYPES.has(type);
}

/** `%PDF-` within the first 1024 bytes (where readers look for the header). */
export function hasPdfSignature(head: Uint8Array): boolean {
  return Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 1024)).includes('%PDF-', 0, 'latin1');
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Classifies a declared media type: a kind, 'binary' (refuse before reading), or 'unknown' (sniff). */
export function kindFromMediaType(type: string): ContentKind | 'binary' | 'unknown' {
  if (!type || type === 'application/octet-stream' || type === 'binary/octet-stream' || type === 'unknown/unknown') return 'unknown';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/json') return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type.startsWith('text/')) return 'text';
  return 'binary';
}

const MAGIC: Array<[string, number[]]> = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['image/webp', [0x52, 0x49, 0x46, 0x46]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/pdf', [0x25, 0x50, 0x44, 0x46]],
  ['application/gzip', [0x1f, 0x8b]],
  ['application/x-7z-compressed', [0x37, 0x7a, 0xbc, 0xaf]],
  ['application/wasm', [0x00, 0x61, 0x73, 0x6d]],
  ['application/x-executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['font/woff', [0x77, 0x4f, 0x46, 0x46]],
  ['font/woff2', [0x77, 0x4f, 0x46, 0x32]],
];

/**
 * Sniffs the first bytes: a known binary signature, or control bytes that text never has,
 * means binary (so a server that labels a PNG as text/html is still refused).
 */
export function sniffContent(head: Uint8Array): ContentKind | 'binary' {
  for (const [, sig] of MAGIC) if (sig.every((b, i) => head[i] === b)) return 'binary';
  const sample = head.subarray(0, 1024);
  const isUtf16Bom = (sample[0] === 0xff && sample[1] === 0xfe) || (sample[0] === 0xfe && sample[1] === 0xff);
  if (!isUtf16Bom) {
    let control = 0;
    for (const b of sample) if (b === 0 || (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b)) control++;
    if (control > 0 && control / Math.max(1, sample.length) > 0.01) return 'binary';
    if (sample.includes(0)) return 'binary';
  }
  const text = Buffer.from(sample)
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  if (/^(<!doctype html|<html|<head|<body|<!--|<script|<div|<p[ >]|<title|<meta)/.test(text)) return 'html';
  if (text.startsWith('<?xml') || /^<[a-z][\w:-]*[\s>]/.test(text)) return text.includes('<html') ? 'html' : 'xml';
  if (text.startsWith('{') || text.startsWith('[')) return 'json';
  return 'text';
}

export function defaultMediaType(kind: ContentKind): string {
  return { html: 'text/html', xml: 'application/xml', json: 'application/json', text: 'text/plain', pdf: 'application/pdf' }[kind];
}
