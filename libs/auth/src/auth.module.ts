import { Module } from '@nestjs/common';
import { AuthGuard, KeyRateLimit } from './auth.guard';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { KeysService } from './keys.service';
import { UsersService } from './users.service';

@Module({
  providers: [AuthRepository, AuthService, KeysService, UsersService, AuthGuard, KeyRateLimit],
  exports: [AuthService, KeysService, UsersService, AuthGuard, KeyRateLimit],
})
export class AuthModule {}
