import 'reflect-metadata';
import { DuplicateCountsResponse, JobListResponse, JobResponse, PagesByMethodResponse } from './list-jobs.dto';

const documented = (cls: { prototype: object }, name: string) =>
  Reflect.getMetadata('swagger/apiModelProperties', cls.prototype, name) as Record<string, unknown> | undefined;

describe('the counts of a job answer', () => {
  it('are integers, never negative, with their descriptions', () => {
    expect(documented(JobResponse, 'page_count')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(documented(JobResponse, 'page_count')?.description).toMatch(/^Pages with a result/);
    expect(documented(DuplicateCountsResponse, 'near')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(documented(JobListResponse, 'total')).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('say nothing more than integer and minimum where they have no description', () => {
    expect(documented(PagesByMethodResponse, 'model')).not.toHaveProperty('description');
    expect(documented(PagesByMethodResponse, 'model')).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('are optional where the answer leaves them out', () => {
    for (const name of ['model_calls', 'model_calls_saved', 'ungrounded_fields']) {
      expect(documented(JobResponse, name)).toMatchObject({ type: 'integer', minimum: 0, required: false });
    }
    expect(documented(PagesByMethodResponse, 'unchanged')).toMatchObject({ required: false });
  });
});
