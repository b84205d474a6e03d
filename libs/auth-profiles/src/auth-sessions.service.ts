import { Inject, Injectable } from '@nestjs/common';
import { AppError, newId, SECRET_SEALER, sleep, type SecretSealer } from '@app/core';
import type { AuthProfileRef, SessionCookies } from '@app/fetch';
import { LOGGER, METRICS, Metrics, type AppLogger } from '@app/observability';
import { AuthMetrics, type LoginKind } from './auth-metrics';
import { AuthProfileEvents } from './auth-profile-events';
import type { AuthProfileRecord, LoginCredentials, SessionState } from './auth-profile.types';
import { AuthProfilesRepository } from './auth-profiles.repository';
import { browserLogin, type LoginBrowser } from './browser-login';
import { formLogin, LoginFailed, type LoginHttp } from './form-login';
import type { SessionJudge } from './logged-in-check';
import { LogoutLinks } from './logout-links';

/** How long one replica may hold a profile's login lock: a login takes two fetches and their redirects. */
export const LOGIN_LOCK_MS = 90_000;
/** How often a page waiting for another replica's login looks at the store. */
const LOGIN_POLL_MS = 100;
/** Logins failed in a row after which a profile is `failing`: its pages fail at once until its login is updated. */
export const MAX_LOGIN_FAILURES = 3;
/** Fresh logins a page may ask for when its answer shows a logged-out state: one, then the page fails `auth_failed`. */
export const RELOGINS_PER_PAGE = 1;

/** A session a page is fetched with: the version it saw (what a re-login is asked against) and how to judge its answers. */
export interface ActiveSession {
  ref: AuthProfileRef;
  version: number;
  cookies: SessionCookies;
  judge: SessionJudge;
  /** The profile's logout URLs: a redirect onto one is not followed (docs/auth-profiles.md "Logout links"). */
  logout: LogoutLinks;
}

/** How a login reaches the site: static requests for a form login, a confined browser for a browser login (absent: no browser here). */
export interface LoginAgent {
  http: LoginHttp;
  browser?: LoginBrowser;
}

/**
 * A session's key in a proxy pool (ProxyPool.pick): the profile and the session's version, so every replica sends
 * a session's requests (its login's among them) through the same proxy of the pool, and the next login draws again.
 */
export function sessionProxyKey(profileId: string, version: number): string {
  return `auth-profile:${profileId}:${version}`;
}

const logoutLinksOf = (record: AuthProfileRecord) => new LogoutLinks(record.hosts, record.logout_patterns ?? []);

export const authFailed = (message: string) => new AppError('upstream-failure', message, { category: 'auth_failed', retryable: false });

/**
 * The sessions of auth profiles, shared by every replica through the store (docs/auth-profiles.md "Sessions"):
 * sealed there, obtained by one login at a time per profile (a lock in the profile's record, taken by one
 * compare-and-set on the session version and freed by its holder or by its timeout), renewed when older than
 * the profile's lifetime or when a page's answer shows it logged out. The login's requests are the caller's
 * `agent`: the page loader's fetcher, so the address guard and the page's proxy pool apply to every one.
 */
@Injectable()
export class AuthSessions {
  private readonly metrics: AuthMetrics;

  constructor(
    private readonly repository: AuthProfilesRepository,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
    @Inject(METRICS) metrics: Metrics,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly events: AuthProfileEvents,
  ) {
    this.metrics = new AuthMetrics(metrics);
  }

  /** The profile's session for a page: the stored one, or a login's when there is none or it is past its lifetime. */
  async current(ref: AuthProfileRef, agent: LoginAgent): Promise<ActiveSession> {
    const record = await this.profile(ref);
    if (record.session_sealed) {
      const ttl = record.session_ttl_seconds;
      if (ttl === null || Date.now() - record.session_at_ms < ttl * 1000) return this.active(ref, record);
      return this.login(ref, record.session_version, 'expired', agent);
    }
    return this.login(ref, record.session_version, 'first', agent);
  }

  /** The links a crawl with this profile must not follow (its logout links); null when the profile is gone. */
  async logoutLinks(ref: AuthProfileRef): Promise<LogoutLinks | null> {
    const record = await this.repository.findForSession(ref.owner, ref.id);
    return record ? logoutLinksOf(record) : null;
  }

  /** A fresh session after a page saw version `seen` logged out: one login across every replica, whoever asks. */
  renew(ref: AuthProfileRef, seen: number, agent: LoginAgent): Promise<ActiveSession> {
    return this.login(ref, seen, 'relogin', agent);
  }

  private async login(ref: AuthProfileRef, seen: number, kind: LoginKind, agent: LoginAgent): Promise<ActiveSession> {
    const deadline = Date.now() + LOGIN_LOCK_MS + 10_000;
    for (;;) {
      const record = await this.profile(ref);
      // Someone logged in since this page saw its session: that login is the page's too.
      if (record.session_version !== seen && record.session_sealed) return this.active(ref, record);
      const token = newId();
      const held = await this.repository.takeLoginLock(ref.owner, ref.id, seen, token, Date.now(), LOGIN_LOCK_MS);
      if (held) return this.loginHolding(ref, held, token, kind, agent);
      if (Date.now() > deadline) throw authFailed(`Auth profile ${ref.id}: another replica's login did not finish in time.`);
      await sleep(LOGIN_POLL_MS);
    }
  }

  private async loginHolding(
    ref: AuthProfileRef,
    record: AuthProfileRecord,
    token: string,
    kind: LoginKind,
    agent: LoginAgent,
  ): Promise<ActiveSession> {
    let state: SessionState;
    try {
      const credentials = JSON.parse(this.sealer.open(record.credentials_sealed)) as LoginCredentials;
      const { hosts, login, check } = record;
      // The login leaves from the proxy of the session it makes (the version storeSession will give it).
      const proxyKey = sessionProxyKey(ref.id, record.session_version + 1);
      state =
        login.type === 'browser'
          ? await browserLogin({ hosts, login, check, credentials, proxyKey }, agent.browser)
          : await formLogin({ hosts, login, check, credentials, proxyKey }, agent.http);
    } catch (error) {
      const reason = error instanceof LoginFailed ? error.message : 'the login failed unexpectedly';
      if (!(error instanceof LoginFailed)) this.logger.error({ profile: ref.id, err: error }, 'auth profile login failed unexpectedly');
      const after = await this.repository.recordFailure(ref.id, token, reason);
      this.metrics.login(ref.id, kind, 'failure');
      this.logger.warn({ profile: ref.id, kind, failures: after?.login_failures ?? null, reason }, 'auth profile login failed');
      // Exactly the failure that makes it failing is announced (the lock's holder recorded it: one replica, once).
      if (after && after.login_failures === MAX_LOGIN_FAILURES)
        await this.events.failing(
          { ref, name: after.name, failures: after.login_failures, reason, logins: after.logins, occurred_at: new Date().toISOString() },
          (err) => this.logger.error({ profile: ref.id, err }, 'auth profile failing listener failed'),
        );
      throw authFailed(`Auth profile ${ref.id} could not log in: ${reason}.`);
    }
    const stored = await this.repository.storeSession(ref.id, token, this.sealer.seal(JSON.stringify(state)), Date.now());
    if (!stored) throw authFailed(`Auth profile ${ref.id}: its login took longer than the login lock (${LOGIN_LOCK_MS / 1000} s).`);
    this.metrics.login(ref.id, kind, 'success');
    this.logger.info({ profile: ref.id, kind, version: stored.session_version }, 'auth profile logged in');
    return this.active(ref, stored);
  }

  private async profile(ref: AuthProfileRef): Promise<AuthProfileRecord> {
    const record = await this.repository.findForSession(ref.owner, ref.id);
    if (!record) throw authFailed(`Auth profile ${ref.id} does not exist (it was deleted, or is not yours).`);
    if (record.login_failures >= MAX_LOGIN_FAILURES)
      throw authFailed(
        `Auth profile ${ref.id} is failing: its last ${record.login_failures} logins failed (${record.last_login_error ?? 'no reason recorded'}); update its login to use it again.`,
      );
    return record;
  }

  private active(ref: AuthProfileRef, record: AuthProfileRecord): ActiveSession {
    const state = JSON.parse(this.sealer.open(record.session_sealed!)) as SessionState;
    this.metrics.sessionUsed(ref.id, record.session_at_ms);
    return {
      ref,
      version: record.session_version,
      cookies: {
        hosts: record.hosts,
        cookies: state.cookies,
        ...(state.local_storage ? { localStorage: state.local_storage } : {}),
        proxyKey: sessionProxyKey(ref.id, record.session_version),
      },
      judge: { hosts: record.hosts, login: record.login, check: record.check },
      logout: logoutLinksOf(record),
    };
  }
}
