import { AppError, type ErrorCategory } from '@app/core';

/**
 * Why a run could not start, as its failed job and the run keep it: the refusal's category, and its
 * reason in words. Field paths lose their `body.` (no request was made); a refusal that is not an
 * AppError (a bug) says nothing of itself beyond "internal" (the server log has it).
 */
export function refusalOf(error: unknown): { category: ErrorCategory; message: string } {
  if (!(error instanceof AppError))
    return { category: 'internal', message: 'The run could not start: an internal error (the server log has it).' };
  const fields = (error.errors ?? []).map((e) => `${e.location.replace(/^body\./, '')}: ${e.message}`);
  const why = fields.length > 0 ? fields.join('; ') : (error.detail ?? error.message);
  return {
    category: error.category ?? (error.slug === 'validation-error' ? 'invalid_request' : 'internal'),
    message: `The run could not start: ${why}`,
  };
}
