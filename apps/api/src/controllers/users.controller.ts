import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreatedUserResponse,
  CreateUserDto,
  CurrentCaller,
  RequiresAdmin,
  TenantDeletionService,
  UserListResponse,
  UsersService,
  type Caller,
} from '@app/auth';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('Users')
@ApiBearerAuth()
@Controller('api/v1/users')
@RequiresAdmin()
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly deletion: TenantDeletionService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a user (tenant) and its first full-access key (admin only)' })
  @ApiCreatedResponse({ type: CreatedUserResponse })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateUserDto) {
    return this.users.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List users (admin only)' })
  @ApiOkResponse({ type: UserListResponse })
  list(@CurrentCaller() caller: Caller) {
    return this.users.list(caller);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiProblems(409)
  @ApiOperation({
    summary: 'Delete a user (tenant) and everything it owns, in every store (admin only)',
    description:
      'Its keys are refused at once on every replica; its running and queued jobs are cancelled; then its jobs, results, ' +
      'crawl state, archived pages, saved sites and schemas, webhooks and their deliveries, monitors and their history, ' +
      'learned programs, provider keys, idempotency records and usage are deleted, and last the user. 204 when nothing ' +
      'of it is left. A 500 or 503 means the deletion stopped half way: the user is listed as `deleting`, its keys stay ' +
      'refused, and DELETE again (or the next start of the service) finishes it. 404 once it is gone; 409 for an admin ' +
      'user (the caller\'s own included). See docs/api.md "Users".',
  })
  @ApiNoContentResponse({ description: 'Deleted: nothing of the user is left.' })
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    await this.deletion.delete(caller, id);
  }
}
