import type { Command } from 'commander';
import { CliUsageError } from '../errors';
import { EXIT } from '../exit-codes';
import type { CommandKit } from '../program';
import { collect, intParser } from '../request-options';
import { renderTable } from '../util/format';

type Json = Record<string, any>;

const HELP_AFTER = `
Auth profiles are logins Gleaner performs by itself for a site's hosts (docs/auth-profiles.md); a request
names one in its \`auth_profile\` field. The password is read from an environment variable
(default GLEANER_LOGIN_PASSWORD), never from an option: options show in ps.

Examples:
  $ GLEANER_LOGIN_PASSWORD=… gleaner auth-profiles create --name staff --host shop.example \\
      --login-url https://shop.example/login --username alice --csrf-field csrf_token --session-cookie sid \\
      --logout-pattern '^/account/end-session'
  $ gleaner auth-profiles list
  $ gleaner auth-profiles update 01JD0000000000000000000000 --logout-pattern '^/account/end-session' --logout-pattern '(?i)/bye$'
  $ gleaner auth-profiles delete 01JD0000000000000000000000`;

interface CreateOptions {
  name: string;
  host: string[];
  loginUrl: string;
  username: string;
  passwordEnv: string;
  usernameField?: string;
  passwordField?: string;
  csrfField?: string;
  formSelector?: string;
  loggedInSelector?: string;
  loggedOutSelector?: string;
  sessionCookie?: string;
  logoutPattern?: string[];
  ttl?: number;
}

interface UpdateOptions {
  name?: string;
  host?: string[];
  logoutPattern?: string[];
  clearLogoutPatterns?: boolean;
  ttl?: number;
  noTtl?: boolean;
}

const LOGOUT_PATTERN_HELP =
  "an RE2 pattern naming one of the site's own logout links (path and query; repeatable, at most 20): a crawl never follows them";

/** POST /auth-profiles's body from `create`'s options and the password (read from the environment). */
export function createProfileBody(opts: CreateOptions, password: string): Json {
  const check = {
    ...(opts.loggedInSelector ? { logged_in_selector: opts.loggedInSelector } : {}),
    ...(opts.loggedOutSelector ? { logged_out_selector: opts.loggedOutSelector } : {}),
    ...(opts.sessionCookie ? { session_cookie: opts.sessionCookie } : {}),
  };
  return {
    name: opts.name,
    hosts: opts.host,
    login: {
      type: 'form',
      url: opts.loginUrl,
      username: opts.username,
      password,
      ...(opts.usernameField ? { username_field: opts.usernameField } : {}),
      ...(opts.passwordField ? { password_field: opts.passwordField } : {}),
      ...(opts.csrfField ? { csrf_field: opts.csrfField } : {}),
      ...(opts.formSelector ? { form_selector: opts.formSelector } : {}),
    },
    ...(Object.keys(check).length > 0 ? { check } : {}),
    ...(opts.logoutPattern ? { logout_patterns: opts.logoutPattern } : {}),
    ...(opts.ttl !== undefined ? { session_ttl_seconds: opts.ttl } : {}),
  };
}

/**
 * PUT /auth-profiles/{id}'s body from `update`'s options: only what is given changes (the login and its
 * credentials stay as stored). `--logout-pattern` replaces the stored patterns; `--clear-logout-patterns` empties them.
 */
export function updateProfileBody(opts: UpdateOptions): Json {
  if (opts.logoutPattern && opts.clearLogoutPatterns) throw new CliUsageError('give --logout-pattern or --clear-logout-patterns, not both');
  const body: Json = {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.host ? { hosts: opts.host } : {}),
    ...(opts.logoutPattern ? { logout_patterns: opts.logoutPattern } : {}),
    ...(opts.clearLogoutPatterns ? { logout_patterns: [] } : {}),
    ...(opts.ttl !== undefined ? { session_ttl_seconds: opts.ttl } : {}),
    ...(opts.noTtl ? { session_ttl_seconds: null } : {}),
  };
  if (Object.keys(body).length === 0)
    throw new CliUsageError('nothing to update: give --name, --host, --logout-pattern, --clear-logout-patterns, --ttl or --no-ttl');
  return body;
}

/** `gleaner auth-profiles ...`: the auth profile resource over the public API (/api/v1/auth-profiles). */
export function registerAuthProfiles(program: Command, kit: CommandKit): void {
  const profiles = program
    .command('auth-profiles')
    .summary('logins Gleaner performs by itself for sites behind a login')
    .description('Create, list, show, update and delete auth profiles.')
    .addHelpText('after', HELP_AFTER);

  profiles
    .command('create')
    .description('create an auth profile with an HTTP form login (POST /api/v1/auth-profiles)')
    .requiredOption('--name <name>', 'a name for the profile')
    .requiredOption('--host <host>', 'a host name the profile applies to (repeatable)', collect)
    .requiredOption('--login-url <url>', 'the login page (its host must be one of --host)')
    .requiredOption('--username <username>', 'the username')
    .option('--password-env <name>', 'the environment variable holding the password', 'GLEANER_LOGIN_PASSWORD')
    .option('--username-field <name>', 'the form field of the username (default username)')
    .option('--password-field <name>', 'the form field of the password (default password)')
    .option('--csrf-field <name>', "the form's hidden field carrying the CSRF token")
    .option('--form-selector <css>', 'which form of the login page')
    .option('--logged-in-selector <css>', 'an element only logged-in pages have')
    .option('--logged-out-selector <css>', 'an element only logged-out pages have')
    .option('--session-cookie <name>', 'a cookie the login must set')
    .option('--logout-pattern <re2>', LOGOUT_PATTERN_HELP, collect)
    .option('--ttl <seconds>', 'renew a session older than this', intParser('--ttl', 1))
    .action(
      kit.action(async (ctx, _args, opts: CreateOptions) => {
        const password = ctx.env[opts.passwordEnv];
        if (!password) throw new CliUsageError(`set the password in ${opts.passwordEnv} (or name another variable with --password-env)`);
        const body = createProfileBody(opts, password);
        const created = await ctx.client().json<Json>('POST', '/api/v1/auth-profiles', { body, signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify(created.body, null, 2)}\n` : `Auth profile ${created.body.id} created.\n`);
        return EXIT.ok;
      }),
    );

  profiles
    .command('list')
    .description('list your auth profiles (GET /api/v1/auth-profiles)')
    .action(
      kit.action(async (ctx) => {
        const { body } = await ctx.client().json<Json>('GET', '/api/v1/auth-profiles', { signal: ctx.signal });
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        else if (body.auth_profiles.length === 0) ctx.io.stdout.write('No auth profiles.\n');
        else
          ctx.io.stdout.write(
            renderTable(body.auth_profiles as Json[], [
              { header: 'ID', value: (p) => String(p.id) },
              { header: 'NAME', value: (p) => String(p.name), shrink: true },
              { header: 'HOSTS', value: (p) => (p.hosts as string[]).join(','), shrink: true },
              { header: 'SESSION', value: (p) => String(p.session.state) },
              { header: 'LOGINS', value: (p) => String(p.session.logins), align: 'right' },
            ]),
          );
        return EXIT.ok;
      }),
    );

  profiles
    .command('get')
    .description('show an auth profile, credentials masked (GET /api/v1/auth-profiles/{id})')
    .argument('<profile>', 'the profile id')
    .action(
      kit.action(async (ctx, [id]) => {
        const { body } = await ctx.client().json<Json>('GET', `/api/v1/auth-profiles/${encodeURIComponent(id!)}`, { signal: ctx.signal });
        ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return EXIT.ok;
      }),
    );

  profiles
    .command('update')
    .description('change an auth profile: only the options given (PUT /api/v1/auth-profiles/{id})')
    .argument('<profile>', 'the profile id')
    .option('--name <name>', 'a new name')
    .option('--host <host>', 'the host names the profile applies to, replacing the stored ones (repeatable; drops the session)', collect)
    .option('--logout-pattern <re2>', `${LOGOUT_PATTERN_HELP}; replaces the stored patterns`, collect)
    .option('--clear-logout-patterns', 'remove every logout pattern')
    .option('--ttl <seconds>', 'renew a session older than this', intParser('--ttl', 1))
    .option('--no-ttl', 'no lifetime: renew a session only when a page shows it logged out')
    .action(
      kit.action(async (ctx, [id], opts: Omit<UpdateOptions, 'noTtl' | 'ttl'> & { ttl?: number | false }) => {
        // Commander's --no-ttl sets ttl to false.
        const body = updateProfileBody({ ...opts, ttl: opts.ttl === false ? undefined : opts.ttl, noTtl: opts.ttl === false });
        const path = `/api/v1/auth-profiles/${encodeURIComponent(id!)}`;
        const updated = await ctx.client().json<Json>('PUT', path, { body, signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify(updated.body, null, 2)}\n` : `Auth profile ${updated.body.id} updated.\n`);
        return EXIT.ok;
      }),
    );

  profiles
    .command('delete')
    .description('delete an auth profile and its session (DELETE /api/v1/auth-profiles/{id})')
    .argument('<profile>', 'the profile id')
    .action(
      kit.action(async (ctx, [id]) => {
        await ctx.client().json<unknown>('DELETE', `/api/v1/auth-profiles/${encodeURIComponent(id!)}`, { signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify({ deleted: id })}\n` : `Auth profile ${id} deleted.\n`);
        return EXIT.ok;
      }),
    );
}
