import { convertHtml } from './convert-html';
import { convertPdf, type PdfTaskResult } from './pdf/convert-pdf';
import type { ConversionInput, ConversionResult, PdfConversionInput } from './types';

/**
 * Test hooks (crash / hang a worker) are honoured only when the test sets this variable; worker
 * threads inherit the parent's environment at spawn time.
 */
const TEST_HOOKS = process.env.GLEANER_CONTENT_TEST_HOOKS === '1';
export const TEST_CRASH_MARKER = '<!--gleaner-test:crash-worker-->';
export const TEST_HANG_MARKER = '<!--gleaner-test:hang-worker-->';
/** Kills the whole process (a crawl page that takes its worker down, for the worker_crash rule). */
export const TEST_KILL_PROCESS_MARKER = '<!--gleaner-test:kill-process-->';

export default function convertTask(input: ConversionInput): ConversionResult {
  if (TEST_HOOKS && typeof input.html === 'string') {
    if (input.html.startsWith(TEST_CRASH_MARKER)) process.exit(13);
    if (input.html.startsWith(TEST_HANG_MARKER)) for (;;);
    if (input.html.startsWith(TEST_KILL_PROCESS_MARKER)) process.kill(process.pid, 'SIGKILL');
  }
  return convertHtml(input);
}

/** The `convertPdf` task of the pool (Piscina's `name`): failures come back as data, not thrown. */
export function convertPdfTask(input: PdfConversionInput): Promise<PdfTaskResult> {
  return convertPdf(input);
}
