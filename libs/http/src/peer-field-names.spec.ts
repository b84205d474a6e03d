import 'reflect-metadata';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { suggestField } from './field-suggestions';
import { peerFieldSuggestion } from './peer-field-names';

class Options {
  @IsOptional() @IsInt() max_pages?: number;
  @IsOptional() @IsInt() max_depth?: number;
  @IsOptional() @IsString({ each: true }) include_patterns?: string[];
  @IsOptional() @IsInt() delay_ms?: number;
}

class Body {
  @IsString() url!: string;
  @IsOptional() @IsInt() timeout_ms?: number;
  @IsOptional() @ValidateNested() @Type(() => Options) options?: Options;
}

describe("peer field names: Firecrawl's and Crawl4AI's names point at Gleaner's", () => {
  it.each([
    ['limit', 'body.options.max_pages'],
    ['maxDiscoveryDepth', 'body.options.max_depth'],
    ['includePaths', 'body.options.include_patterns'],
    ['delay', 'body.options.delay_ms'],
    ['timeout', 'body.timeout_ms'],
  ])('%s → %s', (key, location) => {
    expect(suggestField(key, Body, Body, 'body')).toBe(location);
  });

  it('inside options too, and never a field the body does not have', () => {
    expect(suggestField('limit', Options, Body, 'body')).toBe('body.options.max_pages');
    expect(suggestField('maxConcurrency', Body, Body, 'body')).toBeUndefined();
  });

  it('finds nothing for the names every object inherits (a body key `constructor` or `__proto__` is a plain unknown field)', () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      expect(peerFieldSuggestion(key, () => true)).toBeUndefined();
  });
});
