export * from './types';
export { convertHtml } from './convert-html';
export { ContentPool, type ContentPoolOptions } from './content-pool';
export { ContentError, type ContentErrorReason } from './content-error';
export { checkCssSelector } from './link-extractor';
export { pageLinks } from './page-links';
export { pdfToText, type PdfTextItem } from './pdf/pdf-layout';
export { convertPdf, type PdfTaskResult } from './pdf/convert-pdf';
export {
  bodyOf,
  childElements,
  collapseWhitespace,
  findFirst,
  isElement,
  ownText,
  parseHtml,
  textData,
  visibleText,
  walk,
  type AnyNode,
  type Document,
  type Element,
} from './dom';
export { isInvisible } from './visibility';
