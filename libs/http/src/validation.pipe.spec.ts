import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
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
