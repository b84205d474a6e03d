import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { z } from 'zod';

/**
 * How pages are extracted (docs/learned-extraction.md): `model`, a model call per page; `auto`,
 * learned selector programs per template of the site, verified against the model. One definition
 * for `POST /crawl` and `POST /extract`: the request field, its OpenAPI shape and the stored input.
 */
export const EXTRACTION_MODES = ['model', 'auto'] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

/** The stored job input's field; jobs queued before the option existed extract with the model. */
export const extractionModeSchema = z.enum(EXTRACTION_MODES).default('model');

/** The optional `extraction_mode` request field: enum, default and validation in one place; `description` says what `auto` does for the endpoint. */
export function ExtractionModeProperty(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: EXTRACTION_MODES, default: 'model', description }),
    IsOptional(),
    IsIn(EXTRACTION_MODES, { message: `must be one of: ${EXTRACTION_MODES.join(', ')}` }),
  );
}
