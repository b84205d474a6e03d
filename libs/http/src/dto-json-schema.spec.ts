import 'reflect-metadata';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { dtoJsonSchema, dtoObjectSchema } from './dto-json-schema';
import { IsPrintable } from './dto-rules';

class Inner {
  @IsInt() @Min(1) @Max(5) level!: number;
}

class Outer {
  @ApiPropertyOptional({ description: 'A name.', example: 'x' }) @IsOptional() @IsString() @Length(1, 10) @IsPrintable() name?: string;
  @IsIn(['a', 'b']) mode!: string;
  @IsOptional() @IsArray() @ArrayMaxSize(3) @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsBoolean() flag?: boolean;
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
}

describe('dtoJsonSchema', () => {
  it('states every rule as a keyword, with the decorator words, nested DTOs inlined, unknown fields refused', () => {
    expect(dtoJsonSchema(Outer)).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['mode'],
      properties: {
        name: { description: 'A name.', example: 'x', type: 'string', minLength: 1, maxLength: 10, pattern: expect.any(String) },
        mode: { enum: ['a', 'b'] },
        tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
        flag: { type: 'boolean' },
        inner: {
          type: 'object',
          additionalProperties: false,
          required: ['level'],
          properties: { level: { type: 'integer', minimum: 1, maximum: 5 } },
        },
      },
    });
  });

  it('refuses to inline a DTO that nests itself', () => {
    class Node {
      @IsOptional() @ValidateNested() @Type(() => Node) child?: Node;
    }
    expect(() => dtoJsonSchema(Node)).toThrow(/Node nests itself/);
  });

  it('references nested DTOs when asked (the OpenAPI components)', () => {
    const schema = dtoObjectSchema(Outer, undefined, (cls) => ({ $ref: `#/components/schemas/${cls.name}` }));
    expect(schema.properties.inner).toEqual({ allOf: [{ $ref: '#/components/schemas/Inner' }] });
  });

  it('states a nested DTO declared nullable as the object or null, inlined or referenced', () => {
    class Nullable {
      @ApiPropertyOptional({ type: Inner, nullable: true, description: 'Null removes it.' })
      @IsOptional()
      @ValidateNested()
      @Type(() => Inner)
      inner?: Inner | null;
    }
    const referenced = dtoObjectSchema(Nullable, undefined, (cls) => ({ $ref: `#/components/schemas/${cls.name}` }));
    expect(referenced.properties.inner).toEqual({ anyOf: [{ $ref: '#/components/schemas/Inner' }, { type: 'null' }] });
    expect(dtoJsonSchema(Nullable).properties.inner.anyOf).toEqual([
      expect.objectContaining({ type: 'object', properties: { level: { type: 'integer', minimum: 1, maximum: 5 } } }),
      { type: 'null' },
    ]);
  });
});
