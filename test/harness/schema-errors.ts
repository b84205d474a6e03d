import { AppError, type FieldError } from '@app/core';

/** Run `fn`, expect the schema 422, return its field errors. */
export function schemaErrors(fn: () => unknown): FieldError[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError && error.slug === 'validation-error') return error.errors ?? [];
    throw error;
  }
  throw new Error('expected a validation error');
}
