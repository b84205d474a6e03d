import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequiresFullAccess, SuccessResponse, type Caller } from '@app/auth';
import { CreateSiteDto, SiteListResponse, SiteResponse, SitesService, UpdateSiteDto } from '@app/sites';

@ApiTags('Sites')
@ApiBearerAuth()
@Controller('api/v1/sites')
@RequiresFullAccess()
export class SitesController {
  constructor(private readonly sites: SitesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Save a site (URL, fetch mode, default schema, crawl options, analysis result)' })
  @ApiCreatedResponse({ type: SiteResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateSiteDto) {
    return this.sites.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List your saved sites' })
  @ApiOkResponse({ type: SiteListResponse })
  list(@CurrentCaller() caller: Caller) {
    return this.sites.list(caller);
  }

  @Get(':id')
  @ApiOkResponse({ type: SiteResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.sites.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a site (the url is ignored)' })
  @ApiOkResponse({ type: SiteResponse })
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() dto: UpdateSiteDto) {
    return this.sites.update(caller, id, dto);
  }

  @Delete(':id')
  @ApiOkResponse({ type: SuccessResponse })
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.sites.remove(caller, id);
  }
}
