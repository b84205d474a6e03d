import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { FETCH_MODES, type FetchMode } from '@app/fetch';
import { IsHttpUrl, IsPrintable } from '@app/http';
import { AnalysisResultDto } from './analysis-result.dto';
import { SavedCrawlOptionsDto, SavedCrawlOptionsView } from './saved-crawl-options.dto';

export class CreateSiteDto {
  @ApiProperty({ example: 'https://quotes.example/' }) @IsString() @Length(1, 2048) @IsHttpUrl() url!: string;
  @ApiPropertyOptional({ example: 'Quotes' }) @IsOptional() @IsString() @Length(1, 200) @IsPrintable() name?: string;
  @ApiPropertyOptional({ enum: FETCH_MODES, default: 'auto' }) @IsOptional() @IsIn(FETCH_MODES) fetch_mode?: FetchMode;
  @ApiPropertyOptional({ example: '01JD0000000000000000000000' }) @IsOptional() @IsString() @Length(1, 64) default_schema_id?: string;
  @ApiPropertyOptional({
    type: SavedCrawlOptionsDto,
    description:
      'Defaults for crawls, batches and monitors of this site (a request\'s own options win). In an update, the given options replace the stored ones, except `headers` and `cookies`, which are kept unless given (docs/api.md "Saved sites").',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SavedCrawlOptionsDto)
  crawl_options?: SavedCrawlOptionsDto;
  @ApiPropertyOptional({ type: AnalysisResultDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AnalysisResultDto)
  analysis_result?: AnalysisResultDto;
}

/** PUT /sites/{id}: every field of a new site, optional; `url` is accepted and ignored (a site's URL never changes). */
export class UpdateSiteDto extends PartialType(OmitType(CreateSiteDto, ['url'] as const)) {
  @ApiPropertyOptional({ description: 'Ignored on update.' }) @IsOptional() @IsString() url?: string;
}

export class SiteResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'https://quotes.example/' }) url!: string;
  @ApiProperty({ example: 'quotes.example' }) domain!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: FETCH_MODES }) fetch_mode!: string;
  @ApiProperty({ type: String, nullable: true }) default_schema_id!: string | null;
  @ApiProperty({ type: SavedCrawlOptionsView }) crawl_options!: SavedCrawlOptionsView;
  @ApiProperty({ type: AnalysisResultDto, nullable: true }) analysis_result!: AnalysisResultDto | null;
  @ApiProperty() organization_id!: string;
  @ApiProperty() user_id!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class SiteListResponse {
  @ApiProperty({ type: [SiteResponse] }) sites!: SiteResponse[];
}
