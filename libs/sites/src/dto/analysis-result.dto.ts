import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Min, ValidateNested } from 'class-validator';
import { FETCH_MODES } from '@app/fetch';

export class DetectedElementDto {
  @ApiProperty({ example: 'quote' }) @IsString() @Length(1, 200) name!: string;
  @ApiProperty({ example: 'list_item' }) @IsString() @Length(1, 100) type!: string;
  @ApiProperty({ example: 'A quote with its author and tags' }) @IsString() @Length(0, 2000) description!: string;
  @ApiProperty({ example: 10 }) @IsInt() @Min(0) count!: number;
}

export class FollowPatternDto {
  @ApiProperty({ example: '/page/\\d+/' }) @IsString() @Length(1, 1000) pattern!: string;
  @ApiProperty({ example: 'Pagination' }) @IsString() @Length(0, 2000) description!: string;
  @ApiProperty({ type: [String] }) @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) sample_urls!: string[];
}

/** The analysis result object of docs/api.md "Analysis result fields", as saved on a site. */
export class AnalysisResultDto {
  @ApiPropertyOptional({ example: 'listing' }) @IsOptional() @IsString() @Length(0, 200) page_type?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(0, 10_000) site_summary?: string;
  @ApiPropertyOptional({ enum: FETCH_MODES }) @IsOptional() @IsIn(FETCH_MODES) recommended_fetch_mode?: string;
  @ApiPropertyOptional({ description: 'A schema in the schema language (YAML).' })
  @IsOptional()
  @IsString()
  @Length(0, 262_144)
  suggested_schema?: string;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @ArrayMaxSize(200) @IsString({ each: true }) sample_links?: string[];
  @ApiPropertyOptional({ type: [DetectedElementDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => DetectedElementDto)
  detected_elements?: DetectedElementDto[];
  @ApiPropertyOptional({ type: [FollowPatternDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => FollowPatternDto)
  follow_patterns?: FollowPatternDto[];
}
