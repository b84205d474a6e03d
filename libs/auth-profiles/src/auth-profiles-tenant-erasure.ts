import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { AuthProfilesRepository } from './auth-profiles.repository';

/** A tenant's auth profiles (their credentials and sessions) go with it (docs/api.md "Users"). */
@Injectable()
export class AuthProfilesTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly profiles: AuthProfilesRepository,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'auth_profiles', phase: 'data', run: (userId) => this.profiles.deleteAllOf({ userId }) });
  }
}
