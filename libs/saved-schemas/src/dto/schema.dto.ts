import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsPrintable } from '@app/http';

export const VISIBILITIES = ['private', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

const YAML_EXAMPLE = 'title: string\nprice: number\ntags: [string]\n';

export class CreateSchemaDto {
  @ApiProperty({ example: 'Book page' }) @IsString() @Length(1, 200) @IsPrintable() name!: string;
  @ApiProperty({
    example: YAML_EXAMPLE,
    description: 'The schema in the schema language (shorthand, field list or JSON Schema; YAML or JSON).',
  })
  @IsString()
  @Length(1, 262_144)
  schema_yaml!: string;
  @ApiPropertyOptional({ enum: VISIBILITIES, default: 'private', description: '`private` when absent.' })
  @IsOptional()
  @IsIn(VISIBILITIES)
  visibility?: Visibility;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(0, 2000) description?: string;
  @ApiPropertyOptional({ example: 'books' }) @IsOptional() @IsString() @Length(0, 100) @IsPrintable() category?: string;
  @ApiPropertyOptional({ type: [String], example: ['books'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  @IsPrintable({ each: true })
  tags?: string[];
}

/** PUT /schemas/{id}: every field of a new schema, optional. */
export class UpdateSchemaDto extends PartialType(CreateSchemaDto) {}

export class SchemaResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() category!: string;
  @ApiProperty({ example: YAML_EXAMPLE }) schema_yaml!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ enum: VISIBILITIES }) visibility!: string;
  @ApiProperty() is_platform!: boolean;
  @ApiProperty() usage_count!: number;
  @ApiProperty({ type: String, nullable: true }) organization_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) user_id!: string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class SchemaListResponse {
  @ApiProperty({ type: [SchemaResponse] }) schemas!: SchemaResponse[];
}
