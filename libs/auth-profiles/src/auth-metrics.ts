import { Counter, Gauge, type Registry } from 'prom-client';

/** Why a login happened: the profile's first, a session past its lifetime, or a page that showed it logged out. */
export const LOGIN_KINDS = ['first', 'expired', 'relogin'] as const;
export type LoginKind = (typeof LOGIN_KINDS)[number];

/**
 * Login metrics (docs/operations.md "Metrics"). No per-profile label: profiles are tenants' resources, as many as
 * they create, and a label per profile would grow the series without bound (a profile's own state, `failing`
 * and its last login, is in the API). Session age is the oldest session this process used, sampled at scrape time.
 */
export class AuthMetrics {
  private readonly logins: Counter<'kind' | 'outcome'>;
  private readonly sessionAt = new Map<string, number>();

  constructor(registry: Registry) {
    this.logins =
      (registry.getSingleMetric('gleaner_auth_logins_total') as Counter<'kind' | 'outcome'> | undefined) ??
      new Counter({
        name: 'gleaner_auth_logins_total',
        help: 'Logins of auth profiles by kind (first, expired: past session_ttl_seconds, relogin: a page showed the session logged out) and outcome (success, failure). Unit: logins.',
        labelNames: ['kind', 'outcome'],
        registers: [registry],
      });
    // Every series at 0 from the start: increase() sees the first failure, and the alert on failures has a series to read.
    for (const kind of LOGIN_KINDS) for (const outcome of ['success', 'failure']) this.logins.inc({ kind, outcome }, 0);
    const sessionAt = this.sessionAt;
    if (!registry.getSingleMetric('gleaner_auth_session_age_seconds'))
      new Gauge({
        name: 'gleaner_auth_session_age_seconds',
        help: 'Age of the oldest auth profile session this process used (0 before any), at scrape time. Unit: seconds.',
        registers: [registry],
        collect() {
          const now = Date.now();
          let oldest = now;
          for (const at of sessionAt.values()) oldest = Math.min(oldest, at);
          this.set(Math.max(0, (now - oldest) / 1000));
        },
      });
  }

  login(kind: LoginKind, outcome: 'success' | 'failure'): void {
    this.logins.inc({ kind, outcome });
  }

  sessionUsed(profile: string, atMs: number): void {
    this.sessionAt.set(profile, atMs);
  }
}
