import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequiresFullAccess, SuccessResponse, type Caller } from '@app/auth';
import {
  ChainResponse,
  LLM_PROVIDERS,
  LlmCatalogService,
  LlmChainService,
  LlmKeysService,
  ModelListResponse,
  ProviderKeyListResponse,
  ProviderKeyResponse,
  ProviderListResponse,
  PutChainDto,
  PutProviderKeyDto,
} from '@app/llm';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('LLM')
@ApiBearerAuth()
@Controller('api/v1/llm')
@RequiresFullAccess()
export class LlmController {
  constructor(
    private readonly keys: LlmKeysService,
    private readonly chain: LlmChainService,
    private readonly catalog: LlmCatalogService,
  ) {}

  @Get('keys')
  @ApiOperation({ summary: 'List your provider keys (never the key values)' })
  @ApiOkResponse({ type: ProviderKeyListResponse })
  listKeys(@CurrentCaller() caller: Caller) {
    return this.keys.list(caller);
  }

  @Put('keys')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create or update your key for one provider (200 in both cases; an empty api_key keeps the stored key)' })
  @ApiOkResponse({ type: ProviderKeyResponse })
  putKey(@CurrentCaller() caller: Caller, @Body() dto: PutProviderKeyDto) {
    return this.keys.put(caller, dto);
  }

  @Delete('keys/:id')
  @ApiOperation({ summary: 'Delete one of your provider keys' })
  @ApiOkResponse({ type: SuccessResponse })
  deleteKey(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.keys.remove(caller, id);
  }

  @Get('providers')
  @ApiOperation({ summary: 'The supported providers, with whether you stored a key for each' })
  @ApiOkResponse({ type: ProviderListResponse })
  providers(@CurrentCaller() caller: Caller) {
    return this.catalog.providers(caller);
  }

  @Get('models/:provider')
  @ApiOperation({ summary: "A provider's models from the price table, with prices (USD per million tokens) and context sizes" })
  @ApiParam({ name: 'provider', enum: LLM_PROVIDERS })
  @ApiOkResponse({ type: ModelListResponse })
  models(@CurrentCaller() caller: Caller, @Param('provider') provider: string) {
    return this.catalog.models(caller, provider);
  }

  @Get('chain')
  @ApiOperation({ summary: 'Your provider/model fallback chain, in order' })
  @ApiOkResponse({ type: ChainResponse })
  getChain(@CurrentCaller() caller: Caller) {
    return this.chain.get(caller);
  }

  @Put('chain')
  @ApiProblems(409)
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace your fallback chain (positions follow the given order, from 0)' })
  @ApiOkResponse({ type: ChainResponse })
  putChain(@CurrentCaller() caller: Caller, @Body() dto: PutChainDto) {
    return this.chain.replace(caller, dto);
  }
}
