import { convertHtml, type ConversionInput, type ConversionResult } from '@app/content';

/**
 * The content worker of the test apps (ContentPool `workerFile`): the production conversion plus hooks
 * that crash or hang the worker, or kill its whole process, on a page that starts with a marker.
 */
export const TEST_CRASH_MARKER = '<!--gleaner-test:crash-worker-->';
export const TEST_HANG_MARKER = '<!--gleaner-test:hang-worker-->';
/** Kills the whole process (a crawl page that takes its worker down, for the worker_crash rule). */
export const TEST_KILL_PROCESS_MARKER = '<!--gleaner-test:kill-process-->';

export default function convertWithTestHooks(input: ConversionInput): ConversionResult {
  if (typeof input.html === 'string') {
    if (input.html.startsWith(TEST_CRASH_MARKER)) process.exit(13);
    if (input.html.startsWith(TEST_HANG_MARKER)) for (;;);
    if (input.html.startsWith(TEST_KILL_PROCESS_MARKER)) process.kill(process.pid, 'SIGKILL');
  }
  return convertHtml(input);
}

/** PDFs go through unchanged (the pool's `convertPdf` task). */
export { convertPdf as convertPdfTask } from '@app/content';
