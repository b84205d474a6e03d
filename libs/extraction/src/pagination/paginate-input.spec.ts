import { AppError } from '@app/core';
import { SCHEMA_FROM_PROMPT, type JsonSchemaObject } from '@app/schema';
import { paginateInput } from './paginate-input';

const LIST: JsonSchemaObject = {
  type: 'object',
  properties: { products: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
};

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('no refusal');
}

describe('paginateInput', () => {
  it('keeps the selector and max_pages, 5 pages when absent, null without paginate', () => {
    expect(paginateInput({ selector: 'li.next > a', max_pages: 3 }, LIST)).toEqual({ selector: 'li.next > a', max_pages: 3 });
    expect(paginateInput({ selector: 'a.next' }, LIST)).toEqual({ selector: 'a.next', max_pages: 5 });
    expect(paginateInput(undefined, { type: 'object', properties: { title: { type: 'string' } } })).toBeNull();
  });

  it('accepts a schema whose answer is the list', () => {
    expect(
      paginateInput({ selector: 'a.next' }, { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } }),
    ).not.toBeNull();
  });

  it('is a 422 at body.paginate for a schema without a list of objects', () => {
    const error = refusal(() =>
      paginateInput({ selector: 'a.next' }, { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }),
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error.slug).toBe('validation-error');
    expect(error.errors).toEqual([
      { location: 'body.paginate', message: expect.stringContaining('needs a schema with a list of objects') },
    ]);
  });

  it('is a 422 at body.paginate for a prompt without a schema', () => {
    const error = refusal(() => paginateInput({ selector: 'a.next' }, SCHEMA_FROM_PROMPT));
    expect(error.errors).toEqual([{ location: 'body.paginate', message: expect.stringContaining('a prompt without a schema') }]);
  });
});
