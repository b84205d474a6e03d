import { FirecrawlError } from '../wire/errors';
import { planFormats } from './formats';
import { jsonFormatFields, jsonFormatSchema } from './model-formats';

describe("the json format in Gleaner's terms", () => {
  it('a schema: the schema, the prompt carried as its description', () => {
    const plan = planFormats({ formats: [{ type: 'json', schema: { properties: { a: { type: 'string' } } }, prompt: 'The a.' }] as never });
    expect(jsonFormatFields(plan)).toEqual({
      schema: { type: 'object', properties: { a: { type: 'string' } }, description: 'The a.' },
    });
  });

  it("a prompt alone: Gleaner's prompt without a schema (the model proposes each page's)", () => {
    const plan = planFormats({ formats: [{ type: 'json', prompt: 'The product.' }] as never });
    expect(jsonFormatFields(plan)).toEqual({ prompt: 'The product.' });
    expect(jsonFormatFields(planFormats({ formats: ['markdown'] }))).toBeNull();
  });

  it('where fields are compared by one schema (monitors, change tracking), a prompt alone is a 400', () => {
    const plan = planFormats({ formats: [{ type: 'json', prompt: 'The product.' }] as never });
    let thrown: unknown;
    try {
      jsonFormatSchema(plan, 'scrapeOptions.formats');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FirecrawlError);
    expect((thrown as FirecrawlError).message).toMatch(/scrapeOptions\.formats.*compared by one schema/);
  });
});
