import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsOptional, IsString, Length } from 'class-validator';

/*
 * The request fields that say what a job extracts and from which saved resources (`schema`, `schema_id`,
 * `site_id`; with `formats`, `only_main_content` and `full_page_screenshot` from @app/pages and
 * `extraction_mode` from @app/extraction, the group every job-creating request takes): one definition of each
 * field's rule and words. A request whose words differ says what its own field means (`site_id` brings a URL
 * to an extract and a crawl, not to a batch); the rules never differ (docs/api.md "One source").
 */

/** `schema`: what to extract, in any of the three input forms (the schema lib parses it at intake). */
export function SchemaProperty(words: { description: string; example: unknown }): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description: words.description, example: words.example }), Allow());
}

/** `schema_id`: a saved schema instead of `schema` (`description`: a query's own words, where there is no `schema`). */
export function SchemaIdProperty(description = 'A saved schema (yours, public or platform) instead of `schema`.'): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description }), IsOptional(), IsString(), Length(1, 64));
}

/** The longest `prompt` a request may give. */
export const MAX_PROMPT_LENGTH = 10_000;

/** `prompt`: what the model is told beside the schema (the `json` format's, docs/scrape.md "The json format"). */
export function PromptProperty(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ description, minLength: 1, maxLength: MAX_PROMPT_LENGTH, example: 'Only the products in stock.' }),
    IsOptional(),
    IsString(),
    Length(1, MAX_PROMPT_LENGTH),
  );
}

/** `site_id`: a saved site whose settings are defaults under the request's own (`description`: which ones, for this request). */
export function SiteIdProperty(description: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description }), IsOptional(), IsString(), Length(1, 64));
}
