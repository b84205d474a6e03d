import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreatedUserResponse, CreateUserDto, CurrentCaller, RequiresAdmin, UserListResponse, UsersService, type Caller } from '@app/auth';

@ApiTags('Users')
@ApiBearerAuth()
@Controller('api/v1/users')
@RequiresAdmin()
export class UsersController {
  constructor(private readonly users: UsersService) {}

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
}
