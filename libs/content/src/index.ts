export type { ConversionInput, ConversionMode, ConversionResult, LinkUrlPolicy, OutputFormat } from './types';
export { convertHtml } from './convert-html';
export type { TagFilter } from './tag-filter';
export { ContentPool, type ContentPoolOptions } from './content-pool';
export { checkCssSelector } from './link-extractor';
export { pageLinks } from './page-links';
export { convertPdf } from './pdf/convert-pdf';
export {
  bodyOf,
  childElements,
  collapseWhitespace,
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
