import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { SitesRepository } from './sites.repository';

/** A tenant's saved sites go with it (docs/api.md "Users"). */
@Injectable()
export class SitesTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly sites: SitesRepository,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'sites', phase: 'data', run: (userId) => this.sites.deleteAllOf({ userId }) });
  }
}
