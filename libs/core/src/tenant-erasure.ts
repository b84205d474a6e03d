/**
 * Tenant deletion (docs/api.md "Users"): every lib that keeps something of a tenant registers what it
 * erases here, so the user lib that runs the deletion depends on none of them (as DELETE /jobs/{id} does
 * with JobDeletionHooks). The platform provides one registry per process.
 *
 * Phases run in this order, each eraser of a phase in the order it registered:
 * - `schedules`: nothing new starts for the tenant (its monitors stop launching runs);
 * - `jobs`: its pending and running jobs are cancelled, so crawlers stop their work;
 * - `data`: everything it owns is deleted.
 * An eraser must be safe to run again on what a crashed run left half done, and concurrently with another
 * run for the same tenant (another replica resuming it): the deletion is repeated until it completes.
 */
export const TENANT_ERASURE_PHASES = ['schedules', 'jobs', 'data'] as const;
export type TenantErasurePhase = (typeof TENANT_ERASURE_PHASES)[number];

export interface TenantEraser {
  /** What it erases, for the deletion's log line and metrics ("jobs", "sites", ...): a fixed name per eraser. */
  readonly name: string;
  readonly phase: TenantErasurePhase;
  /** Erases (or stops) what the tenant has here; resolves to how many records it removed or stopped. */
  run(userId: string): Promise<number>;
}

export class TenantErasers {
  private readonly erasers: TenantEraser[] = [];

  register(eraser: TenantEraser): void {
    if (this.erasers.some((e) => e.name === eraser.name)) throw new Error(`tenant eraser "${eraser.name}" registered twice`);
    this.erasers.push(eraser);
  }

  /** Every eraser, phase by phase, in registration order within a phase. */
  inOrder(): TenantEraser[] {
    return TENANT_ERASURE_PHASES.flatMap((phase) => this.erasers.filter((e) => e.phase === phase));
  }
}

export const TENANT_ERASERS = Symbol('TENANT_ERASERS');
