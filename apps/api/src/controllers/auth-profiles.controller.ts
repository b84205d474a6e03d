import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequiresFullAccess, SuccessResponse, type Caller } from '@app/auth';
import {
  AuthProfileListResponse,
  AuthProfileResponse,
  AuthProfilesService,
  CreateAuthProfileDto,
  UpdateAuthProfileDto,
} from '@app/auth-profiles';

/** Auth profiles (docs/auth-profiles.md): logins Gleaner performs and renews by itself for the requests that name one. */
@ApiTags('Auth profiles')
@ApiBearerAuth()
@Controller('api/v1/auth-profiles')
@RequiresFullAccess()
export class AuthProfilesController {
  constructor(private readonly profiles: AuthProfilesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Save an auth profile (hosts, login, logged-out check); the credentials are sealed and never shown again' })
  @ApiCreatedResponse({ type: AuthProfileResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateAuthProfileDto) {
    return this.profiles.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List your auth profiles (credentials masked, the session by its state only)' })
  @ApiOkResponse({ type: AuthProfileListResponse })
  list(@CurrentCaller() caller: Caller) {
    return this.profiles.list(caller);
  }

  @Get(':id')
  @ApiOkResponse({ type: AuthProfileResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.profiles.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update an auth profile (a new login or new hosts drop the session: the next page logs in again)' })
  @ApiOkResponse({ type: AuthProfileResponse })
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() dto: UpdateAuthProfileDto) {
    return this.profiles.update(caller, id, dto);
  }

  @Delete(':id')
  @ApiOkResponse({ type: SuccessResponse })
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.profiles.remove(caller, id);
  }
}
