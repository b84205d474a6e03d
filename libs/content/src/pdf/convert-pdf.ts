import { performance } from 'node:perf_hooks';
import type { ErrorCategory } from '@app/core';
import type { ConversionResult, DocumentInfo, PageLink, PdfConversionInput } from '../types';
import { pdfToText, type PdfTextItem } from './pdf-layout';

type Unpdf = typeof import('unpdf', { with: { 'resolution-mode': 'import' } });
let unpdf: Promise<Unpdf> | undefined;
// unpdf (PDF.js built for servers, pure JavaScript) is ESM: loaded once with a real dynamic import.
function loadUnpdf(): Promise<Unpdf> {
  unpdf ??= import('unpdf');
  return unpdf;
}

/** A PDF that cannot be converted, as a category of the error vocabulary (crosses the worker boundary as data). */
export interface PdfFailure {
  category: Extract<ErrorCategory, 'document_encrypted' | 'document_invalid' | 'content_too_large'>;
  message: string;
}

export type PdfTaskResult = { result: ConversionResult } | { failure: PdfFailure };

/**
 * PDF → markdown and text (docs/scrape.md "PDFs"): the text of every page laid out in lines,
 * headings (larger fonts, outline titles) and paragraphs; the document's info as page metadata; its
 * link annotations as links. An encrypted file, one PDF.js cannot parse, or more pages than
 * `maxPages` is a failure with its category.
 */
export async function convertPdf(input: PdfConversionInput): Promise<PdfTaskResult> {
  const started = performance.now();
  const { getDocumentProxy, extractTextItems, getMeta, extractLinks } = await loadUnpdf();
  let pdf;
  try {
    // A copy: PDF.js takes ownership of (detaches) the buffer it is given.
    pdf = await getDocumentProxy(new Uint8Array(input.pdf), { verbosity: 0, stopAtErrors: false });
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === 'PasswordException') return fail('document_encrypted', 'The PDF is encrypted (it needs a password).');
    return fail('document_invalid', `The PDF could not be read: ${(error as Error)?.message ?? String(error)}.`);
  }
  try {
    if (pdf.numPages > input.maxPages) {
      return fail('content_too_large', `The PDF has ${pdf.numPages} pages; at most ${input.maxPages} are read (GLEANER_PDF_MAX_PAGES).`);
    }
    const { items } = await extractTextItems(pdf);
    const outline = outlineTitles((await pdf.getOutline().catch(() => null)) ?? []);
    const info: Record<string, unknown> = (await getMeta(pdf, { parseDates: true }).catch(() => ({ info: {} }))).info;
    const { links } = await extractLinks(pdf).catch(() => ({ links: [] as string[] }));
    const pages = items as unknown as PdfTextItem[][];
    const markdown = pdfToText(pages, outline, 'markdown');
    const text = pdfToText(pages, outline, 'text');
    const document: DocumentInfo = { pages: pdf.numPages, ...documentInfo(info) };
    const title = str(info.Title) ?? firstHeading(markdown);
    return {
      result: {
        markdown,
        text,
        metadata: {
          ...(title ? { title } : {}),
          ...(str(info.Subject) ? { description: str(info.Subject) } : {}),
          ...(str(info.Language) ? { language: str(info.Language) } : {}),
          openGraph: {},
          jsonLd: [],
          document,
        },
        links: pageLinks(links),
        stats: { htmlBytes: input.pdf.byteLength, markdownBytes: Buffer.byteLength(markdown, 'utf8'), ms: performance.now() - started },
      },
    };
  } catch (error) {
    return fail('document_invalid', `The PDF could not be read: ${(error as Error)?.message ?? String(error)}.`);
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

function fail(category: PdfFailure['category'], message: string): PdfTaskResult {
  return { failure: { category, message } };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function date(value: unknown): string | undefined {
  return value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : undefined;
}

function documentInfo(info: Record<string, unknown>): Omit<DocumentInfo, 'pages'> {
  const out: Omit<DocumentInfo, 'pages'> = {};
  if (str(info.Author)) out.author = str(info.Author);
  if (str(info.Creator)) out.creator = str(info.Creator);
  if (str(info.Producer)) out.producer = str(info.Producer);
  if (str(info.Keywords)) out.keywords = str(info.Keywords);
  if (date(info.CreationDate)) out.createdAt = date(info.CreationDate);
  if (date(info.ModDate)) out.modifiedAt = date(info.ModDate);
  return out;
}

interface OutlineNode {
  title?: string;
  items?: OutlineNode[];
}

function outlineTitles(nodes: OutlineNode[], depth = 0): string[] {
  if (depth > 8) return [];
  return nodes.flatMap((node) => [...(node.title ? [node.title] : []), ...outlineTitles(node.items ?? [], depth + 1)]);
}

function firstHeading(markdown: string): string | undefined {
  return /^#{1,6} (.+)$/m.exec(markdown)?.[1];
}

/** Link annotations: http(s) only, deduplicated in order (a PDF link has no anchor text). */
function pageLinks(urls: string[]): PageLink[] {
  const seen = new Set<string>();
  const out: PageLink[] = [];
  for (const raw of urls) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    out.push({ url: url.href, text: '' });
  }
  return out;
}
