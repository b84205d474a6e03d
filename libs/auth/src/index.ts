export { satisfies, type Caller } from './caller';
export { AuthService } from './auth.service';
export { KeysService } from './keys.service';
export { UsersService, type BootstrapOutcome } from './users.service';
export { TenantDeletionService } from './tenant-deletion.service';
export { TenantDeletionResumer } from './tenant-deletion-resumer';
export { TenantDeletionModule } from './tenant-deletion.module';
export {
  AuthGuard,
  CountsOwnRequests,
  CurrentCaller,
  KeyRateLimit,
  Public,
  RequiresAdmin,
  RequiresFullAccess,
  RequiresKey,
  RequiresScope,
  routePolicyOf,
  type RoutePolicy,
} from './auth.guard';
export { AuthModule } from './auth.module';
export {
  ApiKeyListResponse,
  CreatedApiKeyResponse,
  CreatedUserResponse,
  CreateKeyDto,
  CreateUserDto,
  SuccessResponse,
  UserListResponse,
} from './dto/create-key.dto';
