import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsPrintable, IsRfc3339 } from '@app/http';
import { SCOPES, type Scope } from '../caller';

export class CreateKeyDto {
  @ApiProperty({ example: 'ci pipeline', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsPrintable()
  name!: string;

  @ApiPropertyOptional({ enum: SCOPES, isArray: true, example: ['extract', 'jobs'], description: 'Empty or absent: a full-access key.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(3)
  @IsIn(SCOPES, { each: true, message: 'each value must be one of extract, crawl, jobs' })
  scopes?: Scope[];

  @ApiPropertyOptional({ example: '2027-01-01T00:00:00Z', description: 'RFC 3339; must be in the future.' })
  @IsOptional()
  @IsRfc3339()
  expires_at?: string;
}

export class CreateUserDto {
  @ApiProperty({ example: 'acme', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsPrintable()
  name!: string;
}

export class ApiKeyResponse {
  @ApiProperty({ example: '01JD0000000000000000000000' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'glk_AbCdEfGh' }) key_prefix!: string;
  @ApiProperty({ enum: SCOPES, isArray: true }) scopes!: string[];
  @ApiProperty({ example: '2026-11-22T05:40:00.123Z' }) created_at!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) expires_at!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) revoked_at?: string | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({ description: 'The secret; shown only in this response.', example: 'glk_...' }) key!: string;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: [ApiKeyResponse] }) keys!: ApiKeyResponse[];
}

export class UserResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() is_admin!: boolean;
  @ApiProperty() created_at!: string;
  @ApiProperty({
    enum: ['active', 'deleting'],
    description: '`deleting`: its deletion (DELETE /api/v1/users/{id}) began and has not completed; its keys are refused already.',
  })
  status!: 'active' | 'deleting';
}

export class CreatedUserResponse extends UserResponse {
  @ApiProperty({ type: CreatedApiKeyResponse }) key!: CreatedApiKeyResponse;
}

export class UserListResponse {
  @ApiProperty({ type: [UserResponse] }) users!: UserResponse[];
}

export class SuccessResponse {
  @ApiProperty({ example: true }) success!: boolean;
}
