import type { Caller } from '@app/auth';
import { AppError } from '@app/core';
import { SCHEMA_FROM_PROMPT } from '@app/schema';
import type { JobIntakeService } from '@app/intake';
import { pagePlan, plannedInput } from './page-plan';

const caller = { userId: 'u1' } as Caller;
const schema = { type: 'object', properties: { title: { type: 'string' } } };

/** Only `schema` of the intake is used: a stand-in that resolves what it is given and records the call. */
function intake(): { service: JobIntakeService; calls: unknown[] } {
  const calls: unknown[] = [];
  const service = {
    schema: async (_caller: Caller, fields: { schema?: unknown; schema_id?: string }, siteDefault: string | null, at = 'body') => {
      calls.push({ fields, siteDefault, at });
      return { parsed: { jsonSchema: schema }, schemaId: fields.schema_id ?? siteDefault };
    },
  } as unknown as JobIntakeService;
  return { service, calls };
}

async function refusal(promise: Promise<unknown>): Promise<Array<{ location: string; message: string }>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).errors ?? [];
}

describe('pagePlan', () => {
  it('extracts the schema when no formats are given (the site default included)', async () => {
    const { service, calls } = intake();
    const plan = await pagePlan(service, caller, {}, 'auto', 'sch_site');
    expect(plan).toEqual({ schema, schemaId: 'sch_site', pageFormats: null, prompt: null, paginate: null, warnings: [] });
    expect(calls).toEqual([{ fields: {}, siteDefault: 'sch_site', at: 'body' }]);
  });

  it('hands the intake where the schema_id was given (a URL list body: the query), for its 422', async () => {
    const { service, calls } = intake();
    await pagePlan(service, caller, { schema_id: 'sch_1' }, 'auto', null, 'query');
    expect(calls).toEqual([{ fields: { schema_id: 'sch_1' }, siteDefault: null, at: 'query' }]);
  });

  it('stores formats without a schema or a model, the site default schema left aside', async () => {
    const { service, calls } = intake();
    const plan = await pagePlan(service, caller, { formats: ['links', 'markdown', 'links'] }, 'auto', 'sch_site');
    expect(plan).toEqual({
      schema: null,
      schemaId: null,
      prompt: null,
      paginate: null,
      warnings: [],
      pageFormats: { formats: ['markdown', 'links'], only_main_content: true, full_page_screenshot: false },
    });
    expect(calls).toHaveLength(0);
  });

  it('keeps only_main_content and full_page_screenshot with formats', async () => {
    const plan = await pagePlan(
      intake().service,
      caller,
      { formats: ['screenshot'], only_main_content: false, full_page_screenshot: true },
      'dynamic',
      null,
    );
    expect(plan.pageFormats).toEqual({ formats: ['screenshot'], only_main_content: false, full_page_screenshot: true });
  });

  it('keeps the tag filters with formats (empty lists are none)', async () => {
    const plan = await pagePlan(
      intake().service,
      caller,
      { formats: ['markdown'], include_tags: ['article'], exclude_tags: [] },
      'auto',
      null,
    );
    expect(plan.pageFormats).toEqual({
      formats: ['markdown'],
      only_main_content: true,
      full_page_screenshot: false,
      include_tags: ['article'],
    });
  });

  it('refuses a schema or a schema_id beside formats without json, at body.formats', async () => {
    const errors = await refusal(pagePlan(intake().service, caller, { formats: ['markdown'], schema: { title: 'string' } }, 'auto', null));
    expect(errors).toEqual([expect.objectContaining({ location: 'body.formats', message: expect.stringContaining('drop schema') })]);
    expect(errors[0].message).toContain('add "json" to formats');
    const byId = await refusal(pagePlan(intake().service, caller, { formats: ['markdown'], schema_id: 'sch_1' }, 'auto', null));
    expect(byId[0].message).toContain('schema_id');
  });

  it('extracts the schema beside the formats with json (given, by id, or the site default), with its prompt', async () => {
    const { service, calls } = intake();
    const plan = await pagePlan(
      service,
      caller,
      { formats: ['json', 'markdown'], schema: { title: 'string' }, prompt: 'Titles only.' },
      'auto',
      null,
    );
    expect(plan).toEqual({
      schema,
      schemaId: null,
      prompt: 'Titles only.',
      paginate: null,
      warnings: [],
      pageFormats: { formats: ['markdown', 'json'], only_main_content: true, full_page_screenshot: false },
    });
    expect(calls).toHaveLength(1);
    const bySite = await pagePlan(service, caller, { formats: ['json'] }, 'auto', 'sch_site');
    expect(bySite).toMatchObject({ schema, schemaId: 'sch_site', prompt: null });
  });

  it('refuses json without a schema, at body.schema, before the intake is asked', async () => {
    const { service, calls } = intake();
    const errors = await refusal(pagePlan(service, caller, { formats: ['markdown', 'json'] }, 'auto', null));
    expect(errors).toEqual([{ location: 'body.schema', message: expect.stringContaining('required with the json format') }]);
    expect(calls).toHaveLength(0);
  });

  it('refuses a prompt beside formats without json, at body.prompt', async () => {
    const withFormats = await refusal(pagePlan(intake().service, caller, { formats: ['markdown'], prompt: 'x' }, 'auto', null));
    expect(withFormats).toEqual([{ location: 'body.prompt', message: expect.stringContaining('json format') }]);
  });

  it('takes a prompt without formats: beside a schema, or alone (the intake then stands for the schema to be proposed)', async () => {
    const withSchema = await pagePlan(intake().service, caller, { schema: { title: 'string' }, prompt: 'x' }, 'auto', null);
    expect(withSchema).toMatchObject({ schema, pageFormats: null, prompt: 'x' });
    const { service, calls } = intake();
    const alone = await pagePlan(service, caller, { prompt: 'The products.' }, 'auto', null);
    expect(alone).toMatchObject({ pageFormats: null, prompt: 'The products.' });
    expect(calls).toEqual([{ fields: { prompt: 'The products.' }, siteDefault: null, at: 'body' }]);
    const json = await pagePlan(intake().service, caller, { formats: ['markdown', 'json'], prompt: 'The products.' }, 'auto', null);
    expect(json).toMatchObject({ prompt: 'The products.', pageFormats: { formats: ['markdown', 'json'] } });
  });

  it('refuses extraction_mode auto when the schema is to be proposed from the prompt', async () => {
    const proposing = {
      schema: async () => ({ parsed: { jsonSchema: SCHEMA_FROM_PROMPT, warnings: [] }, schemaId: null }),
    } as unknown as JobIntakeService;
    const errors = await refusal(pagePlan(proposing, caller, { prompt: 'x', extraction_mode: 'auto' }, 'auto', null));
    expect(errors).toEqual([{ location: 'body.extraction_mode', message: expect.stringContaining('needs a schema') }]);
    await expect(pagePlan(proposing, caller, { prompt: 'x', extraction_mode: 'model' }, 'auto', null)).resolves.toMatchObject({
      prompt: 'x',
    });
  });

  it('refuses a screenshot with the static fetch mode', async () => {
    const errors = await refusal(pagePlan(intake().service, caller, { formats: ['screenshot'] }, 'static', null));
    expect(errors).toEqual([expect.objectContaining({ location: 'body.formats', message: expect.stringContaining('needs the browser') })]);
  });

  it('names both ways when a request has neither a schema nor formats (issue 40: not only "a schema is required")', async () => {
    const { service, calls } = intake();
    const errors = await refusal(pagePlan(service, caller, {}, 'auto', null));
    expect(errors).toEqual([{ location: 'body.schema', message: expect.stringMatching(/schema_id.*formats/s) }]);
    expect(errors[0].message).toContain('without a model');
    expect(calls).toHaveLength(0);
  });

  it('leaves a URL list body (ids in the query, no formats there) to the intake', async () => {
    const { service, calls } = intake();
    await pagePlan(service, caller, {}, 'auto', null, 'query');
    expect(calls).toHaveLength(1);
  });

  it('refuses the format options without formats, each at its field', async () => {
    const errors = await refusal(
      pagePlan(
        intake().service,
        caller,
        { only_main_content: false, full_page_screenshot: true, include_tags: ['h1'], exclude_tags: ['nav'] },
        'auto',
        null,
      ),
    );
    expect(errors.map((e) => e.location)).toEqual([
      'body.only_main_content',
      'body.include_tags',
      'body.exclude_tags',
      'body.full_page_screenshot',
    ]);
  });
});

describe('pagePlan: paginate (docs/long-lists.md "Pagination")', () => {
  const listSchema = {
    type: 'object',
    properties: { products: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } },
  };
  const lists = {
    schema: async () => ({ parsed: { jsonSchema: listSchema }, schemaId: null }),
  } as unknown as JobIntakeService;
  const next = { selector: 'li.next > a' };

  it('keeps it with a schema that has a list of objects, max_pages defaulted', async () => {
    const plan = await pagePlan(lists, caller, { schema: listSchema, paginate: next }, 'auto', null);
    expect(plan.paginate).toEqual({ selector: 'li.next > a', max_pages: 5 });
    const input = plannedInput('https://a.test/', plan, {
      site_id: null,
      llm_config: null,
      options: {} as never,
      extraction_mode: 'model',
    });
    expect(input.paginate).toEqual({ selector: 'li.next > a', max_pages: 5 });
  });

  it('is a 422 at body.paginate with formats (json or not) or a schema without a list of objects', async () => {
    for (const formats of [['markdown'], ['json']] as const) {
      const errors = await refusal(pagePlan(lists, caller, { schema: listSchema, formats: [...formats], paginate: next }, 'auto', null));
      expect(errors.map((e) => e.location)).toEqual(['body.paginate']);
    }
    const errors = await refusal(pagePlan(intake().service, caller, { schema: { title: 'string' }, paginate: next }, 'auto', null));
    expect(errors).toEqual([expect.objectContaining({ location: 'body.paginate', message: expect.stringContaining('list of objects') })]);
  });
});

describe('plannedInput (what a crawl and a batch store of their plan)', () => {
  const job = { site_id: 'site_1', llm_config: null, options: { max_pages: 5 } as never, extraction_mode: 'model' as const };

  it('stores the plan and the job fields in one order, the prompt only when there is one', () => {
    const input = plannedInput(
      'https://a.test/',
      { schema, schemaId: 'sch_1', pageFormats: null, prompt: null, warnings: [] } as never,
      job,
    );
    expect(Object.keys(input)).toEqual([
      'url',
      'schema',
      'schema_id',
      'page_formats',
      'warnings',
      'site_id',
      'llm_config',
      'options',
      'extraction_mode',
    ]);
    expect(input).toMatchObject({ url: 'https://a.test/', schema, schema_id: 'sch_1', site_id: 'site_1', options: { max_pages: 5 } });
    const prompted = plannedInput(
      'https://a.test/',
      { schema, schemaId: null, pageFormats: null, prompt: 'titles', warnings: [] } as never,
      job,
    );
    expect(Object.keys(prompted).indexOf('prompt')).toBe(4);
    expect(prompted.prompt).toBe('titles');
  });
});
