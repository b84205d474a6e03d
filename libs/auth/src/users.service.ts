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
   * Before the service listens: when the store holds no key and GLEANER_BOOTSTRAP_KEY is set, the admin user
   * with that key (its secret is the operator's already: nothing to lose if the start fails after). Safe with
   * several replicas. `none`: no key exists and none was made (the variable is unset).
   */
  async bootstrapFromSetting(): Promise<BootstrapOutcome> {
    if ((await this.repository.countKeys()) > 0) return { kind: 'exists' };
    if (!this.config.bootstrapKey) return { kind: 'none' };
    return this.createAdmin(this.config.bootstrapKey);
  }

  /**
   * Once the embedded service listens (a start that fails before, on a busy port say, must not spend it): a
   * generated admin key when the store still holds none, its secret returned to be printed once. Never run by
   * a cluster role, whose output goes to shared logs (docs/operations-deploy.md "The admin key").
   */
  async bootstrapGenerated(): Promise<BootstrapOutcome> {
    if ((await this.repository.countKeys()) > 0) return { kind: 'exists' };
    // One embedded process owns its store: a claim left by a start that stopped between claiming and creating
    // (a crash) must not keep the store keyless for good, so it is recorded but not waited on here.
    return this.createAdmin(undefined, false);
  }

  private async createAdmin(secret: string | undefined, exclusive = true): Promise<BootstrapOutcome> {
    const claimed = await this.repository.claimBootstrap(nowIso());
    if (!claimed && exclusive) return { kind: 'claimed' };
    const created = await this.createUser('admin', true, secret);
    this.logger.info(
      { user_id: created.id, key_id: created.key.id, key_prefix: created.key.key_prefix },
      'bootstrap admin user and key created',
    );
    return secret ? { kind: 'from_setting', keyPrefix: created.key.key_prefix } : { kind: 'generated', secret: created.key.key };
  }
}

/**
 * What a start did about the admin key: `generated` (its secret, printed once), `from_setting`
 * (GLEANER_BOOTSTRAP_KEY's), `exists` (a key was there: nothing made), `claimed` (another process or an
 * earlier start claimed the bootstrap and made it), `none` (no key, none made).
 */
export type BootstrapOutcome =
  | { kind: 'generated'; secret: string }
  | { kind: 'from_setting'; keyPrefix: string }
  | { kind: 'exists' }
  | { kind: 'claimed' }
  | { kind: 'none' };
