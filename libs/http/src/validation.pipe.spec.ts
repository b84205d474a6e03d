import { IsIn, IsOptional, IsString } from 'class-validator';
import { AppError } from '@app/core';
import { StrictValidationPipe } from './validation.pipe';

class OptionalQuery {
  @IsOptional() @IsIn(['json', 'yaml']) format?: string;
}

class RequiredQuery {
  @IsString() q!: string;
}

class WithBaseUrl {
  @IsString() name!: string;
  @IsString() base_url!: string;
}

const query = (metatype: object) => ({ type: 'query' as const, metatype: metatype as never, data: undefined });

describe('StrictValidationPipe on queries', () => {
  it('accepts an empty query for a DTO that allows one, every time, as an instance of the DTO', async () => {
    const pipe = new StrictValidationPipe();
    for (let i = 0; i < 3; i++) await expect(pipe.transform({}, query(OptionalQuery))).resolves.toBeInstanceOf(OptionalQuery);
    // A query with fields is still checked after empty ones were accepted.
    await expect(pipe.transform({ format: 'xml' }, query(OptionalQuery))).rejects.toBeInstanceOf(AppError);
    await expect(pipe.transform({ extra: '1' }, query(OptionalQuery))).rejects.toBeInstanceOf(AppError);
    await expect(pipe.transform({ format: 'yaml' }, query(OptionalQuery))).resolves.toMatchObject({ format: 'yaml' });
  });

  it('refuses an empty query for a DTO that needs a field, every time', async () => {
    const pipe = new StrictValidationPipe();
    for (let i = 0; i < 3; i++) {
      const error = await pipe.transform({}, query(RequiredQuery)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ slug: 'validation-error', errors: [{ location: 'query.q' }] });
    }
    await expect(pipe.transform({ q: 'x' }, query(RequiredQuery))).resolves.toMatchObject({ q: 'x' });
  });

  it('never echoes a rejected base_url (it may hold credentials), and echoes other values', async () => {
    const body = { type: 'body' as const, metatype: WithBaseUrl as never, data: undefined };
    const error = (await new StrictValidationPipe().transform({ name: 7, base_url: 8 }, body).catch((e: unknown) => e)) as AppError;
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { location: 'body.name', message: 'must be a string', value: 7 },
        { location: 'body.base_url', message: 'must be a string' },
      ]),
    );
  });
});
