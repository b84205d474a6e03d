import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { newId, nowIso } from '@app/core';
import { LOGGER, type AppLogger } from '@app/observability';
import { AuthRepository, type UserRecord } from './auth.repository';
import type { Caller } from './caller';
import { KeysService, type CreatedApiKey } from './keys.service';

export interface UserView {
  id: string;
  name: string;
  is_admin: boolean;
  created_at: string;
  /** `deleting`: DELETE /users/{id} began and has not completed; its keys are refused already. */
  status: 'active' | 'deleting';
}

const toUserView = (u: UserRecord): UserView => ({
  id: u._id,
  name: u.name,
  is_admin: u.is_admin,
  created_at: u.created_at,
  status: u.deleting_at ? 'deleting' : 'active',
});

@Injectable()
export class UsersService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly keys: KeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Admin only (enforced by the route requirement): a new tenant and its first full-access key. */
  async create(_caller: Caller, input: { name: string }): Promise<UserView & { key: CreatedApiKey }> {
    return this.createUser(input.name, false);
  }

  async list(_caller: Caller): Promise<{ users: UserView[] }> {
    return this.listAll();
  }

  /** Every user (operators' CLI; the HTTP route is admin-only). */
  async listAll(): Promise<{ users: UserView[] }> {
    return { users: (await this.repository.listUsers()).map(toUserView) };
  }

  async createUser(name: string, isAdmin: boolean, secret?: string): Promise<UserView & { key: CreatedApiKey }> {
    const id = newId();
    const user: UserRecord = { _id: id, name, organization_id: id, is_admin: isAdmin, created_at: nowIso() };
    await this.repository.insertUser(user);
    const key = await this.keys.issue({ userId: id, organizationId: id }, { name: `${name} (first key)` }, secret);
    return { ...toUserView(user), key };
  }

  /**
   * When the store holds no key: an admin user and a full-access key (GLEANER_BOOTSTRAP_KEY when set).
   * Returns the secret to print once, or null when nothing was created. Safe with several replicas.
   */
  async bootstrap(): Promise<{ secret: string; generated: boolean } | null> {
    if ((await this.repository.countKeys()) > 0) return null;
    if (!(await this.repository.claimBootstrap(nowIso()))) return null;
    const created = await this.createUser('admin', true, this.config.bootstrapKey);
    this.logger.info(
      { user_id: created.id, key_id: created.key.id, key_prefix: created.key.key_prefix },
      'bootstrap admin user and key created',
    );
    return { secret: created.key.key, generated: !this.config.bootstrapKey };
  }
}
