import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional } from 'class-validator';
import { SCRAPE_FORMATS } from './scrape-formats';

const FORMATS_DESCRIPTION =
  "What to return (a value given twice counts once). `markdown` and `text`: the content; `html`: the same content as cleaned HTML; `raw_html`: the body as fetched (or as the browser rendered it); `links`: every http(s) link, absolute and deduplicated, with its anchor text; `page_info`: title, description, language, canonical URL, Open Graph, JSON-LD, status and content type (and a PDF's own info); `screenshot`: a PNG taken by the browser (the fetch then renders; a 422 with `fetch_mode: static`); `json`: the request's `schema` (or `schema_id`) extracted from the page by the model, with its provenance (the only format that calls a model: it needs a usable model, and costs).";

/**
 * The `formats` field of every request that returns pages as they are (POST /scrape, crawls and
 * batches without a schema): one definition of its rule and its words in the OpenAPI document.
 */
export function PageFormatsProperty(more?: { default?: string[]; description?: string }) {
  return applyDecorators(
    ApiPropertyOptional({
      enum: SCRAPE_FORMATS,
      isArray: true,
      ...(more?.default ? { default: more.default } : {}),
      example: ['markdown', 'links', 'page_info'],
      description: more?.description ? `${more.description} ${FORMATS_DESCRIPTION}` : FORMATS_DESCRIPTION,
    }),
    IsOptional(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(SCRAPE_FORMATS.length * 2),
    IsIn(SCRAPE_FORMATS, { each: true, message: `each value must be one of ${SCRAPE_FORMATS.join(', ')}` }),
  );
}

/** `only_main_content`, beside `formats`. */
export function OnlyMainContentProperty() {
  return applyDecorators(
    ApiPropertyOptional({
      default: true,
      description: '`true`: the main content only (the article, the product); `false`: the whole page minus site chrome (menus, footers).',
    }),
    IsOptional(),
    IsBoolean(),
  );
}

/** `full_page_screenshot`, beside `formats`. */
export function FullPageScreenshotProperty() {
  return applyDecorators(
    ApiPropertyOptional({
      default: false,
      description: 'With `screenshot`: the whole page (up to 10,000 px high) instead of the 1366×900 viewport.',
    }),
    IsOptional(),
    IsBoolean(),
  );
}
