import { Counter, Gauge, type Registry } from 'prom-client';

/** Why a login happened: the profile's first, a session past its lifetime, or a page that showed it logged out. */
export type LoginKind = 'first' | 'expired' | 'relogin';

/**
 * Per-profile login metrics (docs/operations.md "Auth profiles"): the profile label is its id, never a name,
 * a credential or a cookie value. Session age is sampled at scrape time from the sessions this process used.
 */
export class AuthMetrics {
  private readonly logins: Counter<'profile' | 'kind' | 'outcome'>;
  private readonly sessionAt = new Map<string, number>();

  constructor(registry: Registry) {
    this.logins =
      (registry.getSingleMetric('gleaner_auth_logins_total') as Counter<'profile' | 'kind' | 'outcome'> | undefined) ??
      new Counter({
        name: 'gleaner_auth_logins_total',
        help: 'Logins of auth profiles by profile id, kind (first, expired: past session_ttl_seconds, relogin: a page showed the session logged out) and outcome (success, failure). Unit: logins.',
        labelNames: ['profile', 'kind', 'outcome'],
        registers: [registry],
      });
    const sessionAt = this.sessionAt;
    if (!registry.getSingleMetric('gleaner_auth_session_age_seconds'))
      new Gauge({
        name: 'gleaner_auth_session_age_seconds',
        help: 'Age of the session of each auth profile this process used, by profile id, at scrape time. Unit: seconds.',
        labelNames: ['profile'],
        registers: [registry],
        collect() {
          const now = Date.now();
          for (const [profile, at] of sessionAt) this.set({ profile }, Math.max(0, (now - at) / 1000));
        },
      });
  }

  login(profile: string, kind: LoginKind, outcome: 'success' | 'failure'): void {
    this.logins.inc({ profile, kind, outcome });
  }

  sessionUsed(profile: string, atMs: number): void {
    this.sessionAt.set(profile, atMs);
  }
}
