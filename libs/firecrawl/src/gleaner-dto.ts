import { StrictValidationPipe, type DtoClass } from '@app/http';

const pipe = new StrictValidationPipe();

/**
 * A translated /v2 request checked by Gleaner's own DTO rules (the pipe every /api/v1 body goes through):
 * the compatible API adds no looser path into the job engine. Its 422 names Gleaner's fields; the /v2 error
 * writer (wire/errors.ts) shows them in Firecrawl's names.
 */
export async function asGleanerDto<T extends object>(dto: DtoClass & (new () => T), plain: object): Promise<T> {
  return (await pipe.transform(plain, { type: 'body', metatype: dto })) as T;
}
