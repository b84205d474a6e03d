import { Module } from '@nestjs/common';
import { AuthGuard, KeyRateLimit } from './auth.guard';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { KeysService } from './keys.service';
import { TenantDeletionMetrics } from './tenant-deletion-metrics';
import { TenantDeletionService } from './tenant-deletion.service';
import { UsersService } from './users.service';

@Module({
  providers: [
    AuthRepository,
    AuthService,
    KeysService,
    UsersService,
    AuthGuard,
    KeyRateLimit,
    TenantDeletionMetrics,
    TenantDeletionService,
  ],
  exports: [AuthService, KeysService, UsersService, AuthGuard, KeyRateLimit, TenantDeletionService],
})
export class AuthModule {}
