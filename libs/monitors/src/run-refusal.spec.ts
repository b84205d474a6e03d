import { AppError, Errors } from '@app/core';
import { refusalOf } from './run-refusal';

describe('refusalOf', () => {
  it('names the refused fields without the request prefix, under the error’s category', () => {
    expect(refusalOf(Errors.validation([{ location: 'body.site_id', message: 'no such site', value: 's1' }]))).toEqual({
      category: 'invalid_request',
      message: 'The run could not start: site_id: no such site',
    });
    const noModels = new AppError('validation-error', 'No usable model.', {
      category: 'no_models',
      errors: [{ location: 'body.llm_config', message: 'No usable model.' }],
    });
    expect(refusalOf(noModels)).toEqual({ category: 'no_models', message: 'The run could not start: llm_config: No usable model.' });
  });

  it('gives the detail of a refusal without fields, and nothing of an error that is not a refusal', () => {
    const sealed = new AppError('internal-error', 'Stored secret was sealed with key k1, which is not configured.', {
      category: 'internal',
    });
    expect(refusalOf(sealed)).toEqual({
      category: 'internal',
      message: 'The run could not start: Stored secret was sealed with key k1, which is not configured.',
    });
    expect(refusalOf(new Error('sk-live-1234 leaked in a stack'))).toEqual({
      category: 'internal',
      message: 'The run could not start: an internal error (the server log has it).',
    });
  });
});
