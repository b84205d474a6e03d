export * from './types';
export { convertHtml } from './convert-html';
export { ContentPool, type ContentPoolOptions } from './content-pool';
export { ContentError, type ContentErrorReason } from './content-error';
export { checkCssSelector } from './link-extractor';
export { pageLinks } from './page-links';
export { pdfToText, type PdfTextItem } from './pdf/pdf-layout';
export { convertPdf, type PdfTaskResult } from './pdf/convert-pdf';
export { ATTRIBUTE_LIMITS } from './attribute-values';
