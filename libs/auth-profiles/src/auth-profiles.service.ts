import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { Errors, newId, nowIso, SECRET_SEALER, type FieldError, type SecretSealer } from '@app/core';
import {
  DEFAULT_LOGGED_OUT_STATUSES,
  type AuthProfileRecord,
  type BrowserLoginStep,
  type LoggedInCheck,
  type LoginCredentials,
  type LoginRecipe,
} from './auth-profile.types';
import { AuthProfilesRepository } from './auth-profiles.repository';
import { MAX_LOGIN_FAILURES } from './auth-sessions.service';
import type { BrowserStepDto, CreateAuthProfileDto, LoggedInCheckDto, LoginDto, UpdateAuthProfileDto } from './dto/auth-profile.dto';

/** What an answer shows for a stored credential; sent back in an update, it keeps the stored value. */
export const CREDENTIAL_MASK = '••••';

export interface AuthProfileView {
  id: string;
  name: string;
  hosts: string[];
  login: LoginRecipe & { username: string; password: string };
  check: LoggedInCheck;
  logout_patterns: string[];
  session_ttl_seconds: number | null;
  session: {
    state: 'none' | 'active' | 'failing';
    logged_in_at: string | null;
    logins: number;
    failures: number;
    last_error: string | null;
  };
  organization_id: string;
  user_id: string;
  created_at: string;
  updated_at: string;
}

/** A profile as answers show it: the credentials masked, the session by its state only (never a cookie). */
export function profileView(r: AuthProfileRecord): AuthProfileView {
  const failing = r.login_failures >= MAX_LOGIN_FAILURES;
  return {
    id: r._id,
    name: r.name,
    hosts: r.hosts,
    login: { ...r.login, username: CREDENTIAL_MASK, password: CREDENTIAL_MASK },
    check: r.check,
    logout_patterns: r.logout_patterns ?? [],
    session_ttl_seconds: r.session_ttl_seconds,
    session: {
      state: failing ? 'failing' : r.session_sealed ? 'active' : 'none',
      logged_in_at: r.session_sealed ? new Date(r.session_at_ms).toISOString() : null,
      logins: r.logins,
      failures: r.login_failures,
      last_error: r.last_login_error,
    },
    organization_id: r.organization_id,
    user_id: r.user_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The auth profiles resource (docs/auth-profiles.md): tenant-scoped, credentials sealed, never shown again. */
@Injectable()
export class AuthProfilesService {
  constructor(
    private readonly repository: AuthProfilesRepository,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
  ) {}

  async create(caller: Caller, dto: CreateAuthProfileDto): Promise<AuthProfileView> {
    const { login, credentials } = this.loginOf(dto.login, dto.hosts, null);
    const now = nowIso();
    const record: AuthProfileRecord = {
      _id: newId(),
      user_id: caller.userId,
      organization_id: caller.organizationId,
      name: dto.name,
      hosts: dto.hosts,
      login,
      check: checkOf(dto.check),
      logout_patterns: dto.logout_patterns ?? [],
      session_ttl_seconds: dto.session_ttl_seconds ?? null,
      credentials_sealed: this.sealer.seal(JSON.stringify(credentials)),
      session_sealed: null,
      session_version: 0,
      session_at_ms: 0,
      login_lock_until: 0,
      login_lock_owner: null,
      login_failures: 0,
      last_login_error: null,
      logins: 0,
      created_at: now,
      updated_at: now,
    };
    await this.repository.insert(record);
    return profileView(record);
  }

  async list(caller: Caller): Promise<{ auth_profiles: AuthProfileView[] }> {
    return { auth_profiles: (await this.repository.listOwn(caller)).map(profileView) };
  }

  async get(caller: Caller, id: string): Promise<AuthProfileView> {
    return profileView(await this.own(caller, id));
  }

  /**
   * A given `login` or `check` replaces the stored one (a masked credential keeps the stored value); a new login
   * or new hosts drop the session and the failure count, so the next page logs in with them.
   */
  async update(caller: Caller, id: string, dto: UpdateAuthProfileDto): Promise<AuthProfileView> {
    const current = await this.own(caller, id);
    const hosts = dto.hosts ?? current.hosts;
    const set: Record<string, unknown> = { updated_at: nowIso() };
    if (dto.name !== undefined) set.name = dto.name;
    if (dto.hosts !== undefined) set.hosts = dto.hosts;
    if (dto.check !== undefined) set.check = checkOf(dto.check);
    if (dto.logout_patterns !== undefined) set.logout_patterns = dto.logout_patterns;
    if (dto.session_ttl_seconds !== undefined) set.session_ttl_seconds = dto.session_ttl_seconds;
    if (dto.login !== undefined || dto.hosts !== undefined) {
      const stored = JSON.parse(this.sealer.open(current.credentials_sealed)) as LoginCredentials;
      const { login, credentials } = dto.login
        ? this.loginOf(dto.login, hosts, stored)
        : this.loginOf({ ...current.login, ...stored }, hosts, stored);
      Object.assign(set, {
        login,
        credentials_sealed: this.sealer.seal(JSON.stringify(credentials)),
        session_sealed: null,
        session_at_ms: 0,
        login_failures: 0,
        last_login_error: null,
      });
    }
    const updated = await this.repository.updateOwn(caller, id, set);
    if (!updated) throw Errors.notFound('Auth profile');
    return profileView(updated);
  }

  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    if (!(await this.repository.deleteOwn(caller, id))) throw Errors.notFound('Auth profile');
    return { success: true };
  }

  /** For a request's `auth_profile`: one of the caller's profiles, or a 422 at the field. */
  async checkForUse(caller: { userId: string }, id: string, location: string): Promise<void> {
    if (!(await this.repository.findOwn(caller, id))) throw Errors.validation([{ location, message: 'no such auth profile', value: id }]);
  }

  private async own(caller: Caller, id: string): Promise<AuthProfileRecord> {
    const found = await this.repository.findOwn(caller, id);
    if (!found) throw Errors.notFound('Auth profile');
    return found;
  }

  /**
   * The stored recipe and the credentials (a mask keeps the stored one); the login URL's host, and every `goto`
   * step's, must be a profile host; a field of the other login type is a 422 at it.
   */
  private loginOf(
    given: Omit<LoginDto, 'csrf_field' | 'form_selector'> & { csrf_field?: string | null; form_selector?: string | null },
    hosts: string[],
    stored: LoginCredentials | null,
  ): { login: LoginRecipe; credentials: LoginCredentials } {
    const problems: FieldError[] = [];
    const offHosts = (url: string, location: string) => {
      const host = new URL(url).hostname.toLowerCase();
      if (!hosts.includes(host))
        problems.push({ location, message: `the host ${host} must be one of the profile's hosts (${hosts.join(', ')})` });
    };
    offHosts(given.url, 'body.login.url');
    const credential = (name: 'username' | 'password'): string => {
      if (given[name] !== CREDENTIAL_MASK) return given[name];
      if (stored) return stored[name];
      problems.push({
        location: `body.login.${name}`,
        message: `${CREDENTIAL_MASK} is the mask of a stored ${name}; a new profile needs the ${name} itself`,
      });
      return '';
    };
    const credentials = { username: credential('username'), password: credential('password') };
    let login: LoginRecipe;
    if (given.type === 'browser') {
      for (const field of ['username_field', 'password_field', 'csrf_field', 'form_selector'] as const)
        if (given[field] !== undefined && given[field] !== null)
          problems.push({ location: `body.login.${field}`, message: 'only a login of type form takes this field' });
      const steps = (given.steps ?? []).map((step, index) => stepOf(step, `body.login.steps[${index}]`, problems, offHosts));
      if (!given.steps || given.steps.length === 0)
        problems.push({ location: 'body.login.steps', message: 'a login of type browser needs its steps (1 to 20)' });
      else if (!steps.some((step) => step?.action === 'fill' && 'credential' in step && step.credential === 'password'))
        problems.push({ location: 'body.login.steps', message: 'no step fills in the password (a fill step with credential password)' });
      login = { type: 'browser', url: given.url, steps: steps.filter((step): step is BrowserLoginStep => step !== null) };
    } else {
      if (given.steps !== undefined) problems.push({ location: 'body.login.steps', message: 'only a login of type browser takes steps' });
      login = {
        type: 'form',
        url: given.url,
        username_field: given.username_field ?? 'username',
        password_field: given.password_field ?? 'password',
        csrf_field: given.csrf_field ?? null,
        form_selector: given.form_selector ?? null,
      };
    }
    if (problems.length > 0) throw Errors.validation(problems);
    return { login, credentials };
  }
}

/** The fields each action takes (docs/auth-profiles.md "Browser logins"): one required target, nothing else. */
const STEP_FIELDS: Record<BrowserStepDto['action'], { required: string[][]; allowed: string[] }> = {
  goto: { required: [['url']], allowed: ['url'] },
  fill: { required: [['selector'], ['credential', 'text']], allowed: ['selector', 'credential', 'text'] },
  click: { required: [['selector']], allowed: ['selector'] },
  wait_for: { required: [['selector', 'url_path']], allowed: ['selector', 'url_path'] },
};

function stepOf(
  step: BrowserStepDto,
  location: string,
  problems: FieldError[],
  offHosts: (url: string, location: string) => void,
): BrowserLoginStep | null {
  const rules = STEP_FIELDS[step.action];
  const given = (['selector', 'credential', 'text', 'url', 'url_path'] as const).filter((field) => step[field] !== undefined);
  const before = problems.length;
  for (const field of given)
    if (!rules.allowed.includes(field))
      problems.push({ location: `${location}.${field}`, message: `a ${step.action} step does not take ${field}` });
  for (const oneOf of rules.required) {
    const present = oneOf.filter((field) => given.includes(field as (typeof given)[number]));
    if (present.length !== 1)
      problems.push({
        location: `${location}.${oneOf.length === 1 || present.length === 0 ? oneOf[0] : present[1]}`,
        message: `a ${step.action} step needs ${oneOf.length === 1 ? oneOf[0] : `exactly one of ${oneOf.join(', ')}`}`,
      });
  }
  if (step.action === 'goto' && step.url !== undefined) offHosts(step.url, `${location}.url`);
  if (problems.length > before) return null;
  switch (step.action) {
    case 'goto':
      return { action: 'goto', url: step.url! };
    case 'fill':
      return step.credential !== undefined
        ? { action: 'fill', selector: step.selector!, credential: step.credential }
        : { action: 'fill', selector: step.selector!, text: step.text! };
    case 'click':
      return { action: 'click', selector: step.selector! };
    default:
      return step.selector !== undefined
        ? { action: 'wait_for', selector: step.selector }
        : { action: 'wait_for', url_path: step.url_path! };
  }
}

function checkOf(dto: LoggedInCheckDto | undefined): LoggedInCheck {
  return {
    logged_in_selector: dto?.logged_in_selector ?? null,
    logged_out_selector: dto?.logged_out_selector ?? null,
    logged_out_path: dto?.logged_out_path ?? null,
    session_cookie: dto?.session_cookie ?? null,
    logged_out_statuses: dto?.logged_out_statuses ?? DEFAULT_LOGGED_OUT_STATUSES,
  };
}
