import { Counter, Gauge } from 'prom-client';
import { BoundedLabel, type Metrics } from '@app/observability';

const OTHER = BoundedLabel.OTHER;

/** Why a login happened: the profile's first, a session past its lifetime, or a page that showed it logged out. */
export const LOGIN_KINDS = ['first', 'expired', 'relogin'] as const;
export type LoginKind = (typeof LOGIN_KINDS)[number];

/**
 * Profiles a process names in the `profile` label; later ones are `other`. Profiles are tenants' resources, as
 * many as they create: the cap keeps a process at most (PROFILE_LABELS + 1) × 7 auth series (6 login series and
 * one session age per profile), inside the per-process series budget (docs/operations.md "Metrics").
 */
export const PROFILE_LABELS = 100;

/**
 * Login metrics per profile (docs/operations.md "Metrics", docs/auth-profiles.md "Observability"). The `profile`
 * label is the profile's id, never its name, hosts or credentials (a tenant's text has no place in a label), bounded
 * per process by PROFILE_LABELS. Session age is per profile, sampled at scrape time.
 */
export class AuthMetrics {
  private readonly logins: Counter<'kind' | 'outcome' | 'profile'>;
  private readonly profiles: BoundedLabel;
  /** When the session this process last used for each profile label was obtained (ms since epoch). */
  private readonly sessionAt = new Map<string, number>();

  constructor(metrics: Pick<Metrics, 'registry' | 'boundedLabel'>) {
    const registry = metrics.registry;
    this.profiles = metrics.boundedLabel('auth_profile', PROFILE_LABELS);
    this.logins =
      (registry.getSingleMetric('gleaner_auth_logins_total') as Counter<'kind' | 'outcome' | 'profile'> | undefined) ??
      new Counter({
        name: 'gleaner_auth_logins_total',
        help: `Logins of auth profiles by kind (first, expired: past session_ttl_seconds, relogin: a page showed the session logged out), outcome (success, failure) and profile (its id; the first ${PROFILE_LABELS} a process sees, then other). Unit: logins.`,
        labelNames: ['kind', 'outcome', 'profile'],
        registers: [registry],
      });
    // `other`'s series at 0 from the start: every process has the auth series a dashboard panel reads, and
    // increase() has a start for the profiles past the cap.
    for (const kind of LOGIN_KINDS) for (const outcome of ['success', 'failure']) this.logins.inc({ kind, outcome, profile: OTHER }, 0);
    const sessionAt = this.sessionAt;
    if (!registry.getSingleMetric('gleaner_auth_session_age_seconds'))
      new Gauge({
        name: 'gleaner_auth_session_age_seconds',
        help: `Age of the auth profile session this process last used, by profile (its id; the first ${PROFILE_LABELS}, then other: the one last used among the rest, 0 before one), at scrape time. Unit: seconds.`,
        labelNames: ['profile'],
        registers: [registry],
        collect() {
          const now = Date.now();
          this.reset();
          this.set({ profile: OTHER }, 0);
          for (const [profile, at] of sessionAt) this.set({ profile }, Math.max(0, (now - at) / 1000));
        },
      });
  }

  login(profile: string, kind: LoginKind, outcome: 'success' | 'failure'): void {
    this.logins.inc({ kind, outcome, profile: this.profiles.label(profile) });
  }

  sessionUsed(profile: string, atMs: number): void {
    this.sessionAt.set(this.profiles.label(profile), atMs);
  }
}
