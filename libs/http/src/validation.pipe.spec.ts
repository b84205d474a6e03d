import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { AppError } from '@app/core';
import { editDistance, suggestField } from './field-suggestions';
import { parseJsonBody } from './json-body';
import { StrictValidationPipe } from './validation.pipe';

class Options {
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(1) @Max(100) max_pages?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(10) max_depth?: number;
}

class Request {
  @ApiProperty() @IsString() url!: string;
  @ApiProperty() @IsBoolean() is_enabled!: boolean;
  @ApiPropertyOptional({ type: Options }) @IsOptional() @ValidateNested() @Type(() => Options) options?: Options;
}

async function errorsOf(body: unknown): Promise<unknown> {
  try {
    await new StrictValidationPipe().transform(body, { type: 'body', metatype: Request });
  } catch (error) {
    return (error as AppError).errors;
  }
  throw new Error('accepted');
}

describe('StrictValidationPipe messages', () => {
  it('gives a wrong type its type error alone (no false range messages)', async () => {
    expect(await errorsOf({ url: 'u', is_enabled: true, options: { max_pages: '20' } })).toEqual([
      { location: 'body.options.max_pages', message: 'must be an integer number', value: '20' },
    ]);
  });

  it('keeps every broken rule when the type is right', async () => {
    expect(await errorsOf({ url: 'u', is_enabled: true, options: { max_pages: 0 } })).toEqual([
      { location: 'body.options.max_pages', message: 'must not be less than 1', value: 0 },
    ]);
  });

  it('says "is required" for a missing required field', async () => {
    expect(await errorsOf({ url: 'u' })).toEqual([{ location: 'body.is_enabled', message: 'is required' }]);
  });

  it('names the field an unknown one probably meant: a near name, or the same name at another level', async () => {
    expect(await errorsOf({ url: 'u', is_enabled: true, options: { max_page: 3 } })).toEqual([
      { location: 'body.options.max_page', message: 'unknown field: did you mean max_pages?' },
    ]);
    expect(await errorsOf({ url: 'u', is_enabled: true, max_pages: 3 })).toEqual([
      { location: 'body.max_pages', message: 'unknown field: did you mean body.options.max_pages?' },
    ]);
    expect(await errorsOf({ url: 'u', is_enabled: true, options: { url: 'x' } })).toEqual([
      { location: 'body.options.url', message: 'unknown field: did you mean body.url?' },
    ]);
    expect(await errorsOf({ url: 'u', is_enabled: true, colour: 'x' })).toEqual([{ location: 'body.colour', message: 'unknown field' }]);
  });
});

describe('suggestField', () => {
  it('allows one edit per three characters, at most two', () => {
    expect(editDistance('max_page', 'max_pages')).toBe(1);
    expect(suggestField('urk', Request, Request, 'body')).toBe('url');
    expect(suggestField('ur', Request, Request, 'body')).toBeUndefined();
    expect(suggestField('is_enabeld', Request, Request, 'body')).toBe('is_enabled');
    expect(suggestField('enabled', Request, Request, 'body')).toBeUndefined();
    // camelCase from other APIs, here and at another level.
    expect(suggestField('isEnabled', Request, Request, 'body')).toBe('is_enabled');
    expect(suggestField('maxDepth', Request, Request, 'body')).toBe('body.options.max_depth');
    expect(suggestField('max_dept', Request, Request, 'body')).toBe('body.options.max_depth');
  });
});

describe('parseJsonBody', () => {
  it('points invalid JSON at the body, with where it broke and without quoting it', () => {
    let error: AppError | undefined;
    try {
      parseJsonBody('{"api_key": "sk-secret", bad}');
    } catch (e) {
      error = e as AppError;
    }
    expect(error?.errors).toEqual([{ location: 'body', message: expect.stringMatching(/^is not valid JSON: .*position \d+/) }]);
    expect(JSON.stringify(error?.errors)).not.toContain('sk-secret');
  });
});

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
