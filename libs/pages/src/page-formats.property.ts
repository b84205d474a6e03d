import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsCssSelector } from '@app/fetch';
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

/** The most selectors `include_tags` or `exclude_tags` takes. */
export const MAX_TAG_SELECTORS = 50;

function TagsProperty(description: string, example: string[]) {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], maxItems: MAX_TAG_SELECTORS, example, description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_TAG_SELECTORS),
    IsString({ each: true }),
    Length(1, 500, { each: true }),
    IsCssSelector({ each: true }) as PropertyDecorator,
  );
}

/** `include_tags`, beside `formats` (docs/scrape.md "Tag filters"). */
export function IncludeTagsProperty() {
  return applyDecorators(
    TagsProperty(
      "CSS selectors (each 1-500 characters): only the elements they match make the content (markdown, text, html and what the `json` format reads), in page order, instead of the main content or the whole page; `only_main_content` then does not apply. Links, `page_info` and screenshots are the whole page's.",
      ['article', '.price'],
    ),
  );
}

/** `exclude_tags`, beside `formats`. */
export function ExcludeTagsProperty() {
  return applyDecorators(
    TagsProperty(
      'CSS selectors (each 1-500 characters): the elements they match, and everything inside them, are left out of the content.',
      ['.ads', '#comments'],
    ),
  );
}
