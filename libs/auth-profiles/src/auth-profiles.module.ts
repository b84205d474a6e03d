import { Module } from '@nestjs/common';
import { AuthProfilesRepository } from './auth-profiles.repository';
import { AuthProfilesService } from './auth-profiles.service';
import { AuthProfilesTenantErasure } from './auth-profiles-tenant-erasure';
import { AuthSessions } from './auth-sessions.service';
import { AuthProfileEvents } from './auth-profile-events';

/** Auth profiles (docs/auth-profiles.md): the resource on the API side, the sessions on the crawler side. */
@Module({
  providers: [AuthProfilesRepository, AuthProfilesService, AuthProfilesTenantErasure, AuthSessions, AuthProfileEvents],
  exports: [AuthProfilesService, AuthSessions, AuthProfileEvents],
})
export class AuthProfilesModule {}
