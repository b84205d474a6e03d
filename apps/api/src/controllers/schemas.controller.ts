import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequiresFullAccess, SuccessResponse, type Caller } from '@app/auth';
import { CreateSchemaDto, SavedSchemasService, SchemaListResponse, SchemaResponse, UpdateSchemaDto } from '@app/saved-schemas';

@ApiTags('Schemas')
@ApiBearerAuth()
@Controller('api/v1/schemas')
@RequiresFullAccess()
export class SchemasController {
  constructor(private readonly schemas: SavedSchemasService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Save a schema (validated with the schema language; 422 points into it)' })
  @ApiCreatedResponse({ type: SchemaResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateSchemaDto) {
    return this.schemas.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List your schemas, public schemas and platform schemas' })
  @ApiOkResponse({ type: SchemaListResponse })
  list(@CurrentCaller() caller: Caller) {
    return this.schemas.list(caller);
  }

  @Get(':id')
  @ApiOkResponse({ type: SchemaResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.schemas.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update your schema (public and platform schemas of others are read-only: 403)' })
  @ApiOkResponse({ type: SchemaResponse })
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() dto: UpdateSchemaDto) {
    return this.schemas.update(caller, id, dto);
  }

  @Delete(':id')
  @ApiOkResponse({ type: SuccessResponse })
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.schemas.remove(caller, id);
  }
}
