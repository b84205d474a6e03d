import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { SavedSchemasRepository } from './saved-schemas.repository';

/**
 * A tenant's saved schemas go with it (docs/api.md "Users"), its public ones too: another tenant's site or
 * request that named one finds it gone, as after DELETE /schemas/{id}.
 */
@Injectable()
export class SchemasTenantErasure implements OnModuleInit {
  constructor(
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    private readonly schemas: SavedSchemasRepository,
  ) {}

  onModuleInit(): void {
    this.erasers.register({ name: 'schemas', phase: 'data', run: (userId) => this.schemas.deleteAllOf({ userId }) });
  }
}
