import { convertHtml } from './convert-html';
import { convertPdf, type PdfTaskResult } from './pdf/convert-pdf';
import type { ConversionInput, ConversionResult, PdfConversionInput } from './types';

export default function convertTask(input: ConversionInput): ConversionResult {
  return convertHtml(input);
}

/** The `convertPdf` task of the pool (Piscina's `name`): failures come back as data, not thrown. */
export function convertPdfTask(input: PdfConversionInput): Promise<PdfTaskResult> {
  return convertPdf(input);
}
