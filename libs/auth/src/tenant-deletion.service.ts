import { Inject, Injectable } from '@nestjs/common';
import { Errors, nowIso, TENANT_ERASERS, type TenantErasers } from '@app/core';
import { LOGGER, type AppLogger } from '@app/observability';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import type { Caller } from './caller';
import { TenantDeletionMetrics } from './tenant-deletion-metrics';

/**
 * DELETE /api/v1/users/{id} (docs/api.md "Users"): erases a tenant from every store.
 *
 * 1. The user is marked `deleting` and every key of it is dropped from every replica's key cache (the
 *    revocation broadcast): from then on its keys are refused everywhere, before anything is deleted.
 * 2. The registered erasers run phase by phase (libs/core tenant-erasure.ts): its monitors stop, its
 *    pending and running jobs are cancelled as POST /jobs/{id}/cancel does, then every lib deletes what
 *    the tenant owns.
 * 3. Its keys and its user record go last: while the record is there, the deletion is not done.
 *
 * Every step is safe to run again, also concurrently on two replicas, so a deletion that stopped half way
 * (a crash, a store outage) is finished by a repeated DELETE or by TenantDeletionResumer.
 */
@Injectable()
export class TenantDeletionService {
  /** Deletions running in this process, so a repeated DELETE (or the resume) joins the one going on. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly repository: AuthRepository,
    private readonly auth: AuthService,
    private readonly metrics: TenantDeletionMetrics,
    @Inject(TENANT_ERASERS) private readonly erasers: TenantErasers,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Admin only (the route's requirement). 404 for an unknown user, 409 for an admin user (the caller's own included). */
  async delete(caller: Caller, userId: string): Promise<void> {
    const user = await this.repository.findUser(userId);
    if (!user) throw Errors.notFound('User');
    if (user.is_admin) {
      throw Errors.conflict(
        user._id === caller.userId
          ? 'You cannot delete your own user: the key you call with belongs to it.'
          : 'Admin users cannot be deleted over the API: only tenants (users that are not admins) can.',
      );
    }
    await this.erase(userId);
  }

  /** Runs the deletion of a user, or joins the one running in this process; resolves when nothing of it is left. */
  erase(userId: string): Promise<void> {
    const current = this.running.get(userId);
    if (current) return current;
    const run = this.sweep(userId).finally(() => this.running.delete(userId));
    this.running.set(userId, run);
    return run;
  }

  /** Deletions that began and did not complete, oldest first (TenantDeletionResumer takes them up). */
  async unfinished(limit: number): Promise<Array<{ id: string; deleting_since: string }>> {
    const users = await this.repository.usersBeingDeleted(limit);
    return users.map((u) => ({ id: u._id, deleting_since: u.deleting_at ?? '' }));
  }

  private async sweep(userId: string): Promise<void> {
    const started = Date.now();
    const mark = await this.repository.markDeleting(userId, nowIso());
    if (!mark) return; // deleted meanwhile (another replica finished it)
    const resumed = !mark.marked;
    this.logger.info({ user_id: userId, resumed, deleting_since: mark.user.deleting_at }, 'tenant deletion started');
    const erased: Record<string, number> = {};
    let step = 'keys';
    try {
      for (const key of await this.repository.listKeys({ userId })) await this.auth.broadcastRevocation(key.key_hash);
      for (const eraser of this.erasers.inOrder()) {
        step = eraser.name;
        erased[eraser.name] = await eraser.run(userId);
      }
      step = 'user';
      erased.keys = await this.repository.deleteKeysOf({ userId });
      erased.user = (await this.repository.deleteUser(userId)) ? 1 : 0;
    } catch (error) {
      this.metrics.failed();
      this.logger.error(
        { err: error, user_id: userId, step },
        'tenant deletion stopped half way; it is resumed by a repeated DELETE or a restart',
      );
      // A 500 (or a 503 for a store outage): the keys are refused already; DELETE again finishes the rest.
      throw error;
    }
    const seconds = (Date.now() - started) / 1000;
    this.metrics.completed();
    // The log line says what went, never the user's name or anything it stored.
    this.logger.info({ user_id: userId, resumed, erased, duration_ms: Math.round(seconds * 1000) }, 'tenant deleted');
  }
}
