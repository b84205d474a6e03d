import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiKeyListResponse,
  CreatedApiKeyResponse,
  CreateKeyDto,
  CurrentCaller,
  KeysService,
  RequiresFullAccess,
  SuccessResponse,
  type Caller,
} from '@app/auth';

@ApiTags('API keys')
@ApiBearerAuth()
@Controller('api/v1/keys')
@RequiresFullAccess()
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an API key (the secret is shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateKeyDto) {
    return this.keys.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List your API keys (no secrets)' })
  @ApiOkResponse({ type: ApiKeyListResponse })
  list(@CurrentCaller() caller: Caller) {
    return this.keys.list(caller);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke an API key (effective on every replica within 1 s)' })
  @ApiOkResponse({ type: SuccessResponse })
  revoke(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.keys.revoke(caller, id);
  }
}
