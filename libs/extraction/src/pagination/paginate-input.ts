import { z } from 'zod';
import { Errors } from '@app/core';
import { isSchemaFromPrompt, type JsonSchemaObject } from '@app/schema';
import type { PaginateDto } from '../dto/paginate.dto';
import { PAGINATE_DEFAULT_MAX_PAGES } from '../dto/paginate.dto';
import { listPaths } from '../lists/list-paths';

/**
 * An extract's `paginate` as its job keeps it (docs/long-lists.md "Pagination"), or a 422 at `body.paginate`: it
 * follows a list over pages, so the schema must ask for a list of objects (the answer, or a top-level field), and
 * a prompt without a schema (the model proposes the schema per page) cannot promise one.
 */
export function paginateInput(dto: PaginateDto | undefined, schema: JsonSchemaObject): { selector: string; max_pages: number } | null {
  if (!dto) return null;
  if (isSchemaFromPrompt(schema))
    throw Errors.validation([
      {
        location: 'body.paginate',
        message: 'needs a schema with a list of objects; a prompt without a schema has none to follow over pages',
      },
    ]);
  if (listPaths(schema).length === 0)
    throw Errors.validation([
      {
        location: 'body.paginate',
        message:
          'needs a schema with a list of objects, as the answer or a top-level field (`{"products": [{"name": "string"}]}`): the pages add items to it',
      },
    ]);
  return { selector: dto.selector, max_pages: dto.max_pages ?? PAGINATE_DEFAULT_MAX_PAGES };
}

/** A job's stored `paginate` (an extract's, a crawl's or a batch's input); an extract's reads as null without one. */
export const storedPaginate = z.object({ selector: z.string(), max_pages: z.number().int().min(1) });
