import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  MaxLength,
  registerDecorator,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { IsCssSelector, TOKEN_PATTERN } from '@app/fetch';
import { IsHttpUrl, IsPrintable, OptionalHttpUrlProperty } from '@app/http';
import { logoutPatternProblem, MAX_LOGOUT_PATTERN_LENGTH, MAX_LOGOUT_PATTERNS } from '../logout-links';

/** Each element a valid logout pattern (RE2, linear time whatever it is: a crawl's owner runs it on every link). */
function IsLogoutPattern(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isLogoutPattern',
      target: target.constructor,
      propertyName,
      options: { message: 'each must be a valid RE2 regular expression (no backreferences or lookaround)', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && logoutPatternProblem(value) === null },
    });
}

/** A host name as a URL has it (lower case, no port): the profile's session goes to these hosts only. */
export const HOST_NAME_PATTERN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** The longest session lifetime a profile may set (30 days). */
export const MAX_SESSION_TTL_SECONDS = 30 * 24 * 3600;

/** The longest browser login (steps after opening the login page). */
export const MAX_BROWSER_STEPS = 20;

/** One step of a browser login (docs/auth-profiles.md "Browser logins"); which fields a step takes depends on its action. */
export class BrowserStepDto {
  @ApiProperty({
    enum: ['goto', 'fill', 'click', 'wait_for'],
    description:
      "`goto` opens `url` (a profile host); `fill` types `credential` (the profile's `username` or `password`) or `text` into the element `selector`; `click` clicks `selector`; `wait_for` waits until `selector` is in the page or the page's path starts with `url_path`.",
  })
  @IsIn(['goto', 'fill', 'click', 'wait_for'])
  action!: 'goto' | 'fill' | 'click' | 'wait_for';

  @ApiPropertyOptional({
    example: '#email',
    description: '`fill`, `click` (required) and `wait_for` (this or `url_path`): a CSS selector.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  selector?: string;

  @ApiPropertyOptional({
    enum: ['username', 'password'],
    description: '`fill` (this or `text`): which credential goes in; the value itself is never part of the step.',
  })
  @IsOptional()
  @IsIn(['username', 'password'])
  credential?: 'username' | 'password';

  @ApiPropertyOptional({
    example: 'staff',
    description: '`fill` (this or `credential`): a fixed text (not sealed: no secret belongs here).',
  })
  @IsOptional()
  @IsString()
  @Length(0, 512)
  text?: string;

  @OptionalHttpUrlProperty({ example: 'https://shop.example/sso', description: "`goto` (required): a URL on one of the profile's hosts." })
  url?: string;

  @ApiPropertyOptional({ example: '/account', description: "`wait_for` (this or `selector`): a path prefix the page's URL must reach." })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @Matches(/^\/[\x21-\x7e]*$/, { message: 'must be a URL path starting with /' })
  url_path?: string;
}

export class LoginDto {
  @ApiProperty({
    enum: ['form', 'browser'],
    description:
      'How the profile logs in: `form`, an HTTP form login (the form fields below); `browser`, `steps` run in the browser from `url` (for logins that need JavaScript).',
  })
  @IsIn(['form', 'browser'])
  type!: 'form' | 'browser';

  @ApiProperty({
    example: 'https://shop.example/login',
    description: "The login page. Its host must be one of the profile's `hosts` (credentials are never posted anywhere else).",
  })
  @IsString()
  @Length(1, 2048)
  @IsHttpUrl()
  url!: string;

  @ApiPropertyOptional({
    type: [BrowserStepDto],
    maxItems: MAX_BROWSER_STEPS,
    description: `\`browser\` only, and required there: 1 to ${MAX_BROWSER_STEPS} steps run in order after the login page opened. At least one \`fill\` step must type the password.`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BROWSER_STEPS)
  @ValidateNested({ each: true })
  @Type(() => BrowserStepDto)
  steps?: BrowserStepDto[];

  @ApiPropertyOptional({ default: 'username', description: '`form` only: the name of the form field the username goes in.' })
  @IsOptional()
  @IsString()
  @Matches(TOKEN_PATTERN, { message: "must be a form field name (letters, digits and !#$%&'*+.^_`|~-, at most 100)" })
  username_field?: string;

  @ApiPropertyOptional({ default: 'password', description: '`form` only: the name of the form field the password goes in.' })
  @IsOptional()
  @IsString()
  @Matches(TOKEN_PATTERN, { message: "must be a form field name (letters, digits and !#$%&'*+.^_`|~-, at most 100)" })
  password_field?: string;

  @ApiPropertyOptional({
    example: 'csrf_token',
    description:
      "`form` only: the form's hidden field that carries the CSRF token. Every hidden field of the form is posted back anyway; naming this one makes a login page without it a failed login.",
  })
  @IsOptional()
  @IsString()
  @Matches(TOKEN_PATTERN, { message: "must be a form field name (letters, digits and !#$%&'*+.^_`|~-, at most 100)" })
  csrf_field?: string;

  @ApiPropertyOptional({
    example: 'form#login',
    description: '`form` only: which form of the login page (default: the one holding the password field).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  form_selector?: string;

  @ApiProperty({
    example: 'alice',
    description: 'Sealed at rest and never shown again (answers show `••••`; sent back in an update, it keeps the stored value).',
  })
  @IsString()
  @Length(1, 512)
  username!: string;

  @ApiProperty({
    example: 'correct horse battery staple',
    description: 'Sealed at rest and never shown again (answers show `••••`; sent back in an update, it keeps the stored value).',
  })
  @IsString()
  @Length(1, 512)
  password!: string;
}

export class LoggedInCheckDto {
  @ApiPropertyOptional({
    example: 'a[href="/logout"]',
    description: 'A CSS selector only logged-in pages match: an HTML page without it is logged out.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  logged_in_selector?: string;

  @ApiPropertyOptional({ example: 'form#login', description: 'A CSS selector only logged-out pages match (a login form).' })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  logged_out_selector?: string;

  @ApiPropertyOptional({
    example: '/account/login',
    description: "A path (a prefix) of the profile's hosts that logged-out answers land on, besides the login URL's own path.",
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @Matches(/^\/[\x21-\x7e]*$/, { message: 'must be a URL path starting with /' })
  logged_out_path?: string;

  @ApiPropertyOptional({ example: 'sid', description: 'A cookie the login must set: a login that does not set it failed.' })
  @IsOptional()
  @IsString()
  @Matches(TOKEN_PATTERN, { message: 'must be a cookie name' })
  session_cookie?: string;

  @ApiPropertyOptional({
    type: [Number],
    default: [401, 403],
    example: [401, 403],
    description: 'Answer statuses that mean logged out.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsInt({ each: true })
  @Min(400, { each: true })
  @Max(599, { each: true })
  logged_out_statuses?: number[];
}

export class CreateAuthProfileDto {
  @ApiProperty({ example: 'Shop staff' })
  @IsString()
  @Length(1, 200)
  @IsPrintable()
  name!: string;

  @ApiProperty({
    type: [String],
    example: ['shop.example'],
    description:
      "Host names (lower case, no port) the profile applies to: its session's cookies go to these hosts only, on any port, never to another host, not even after a redirect.",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(HOST_NAME_PATTERN, { each: true, message: 'each must be a host name in lower case, without a port' })
  hosts!: string[];

  @ApiProperty({ type: LoginDto, description: 'How the profile logs in.' })
  @IsObject()
  @ValidateNested()
  @Type(() => LoginDto)
  login!: LoginDto;

  @ApiPropertyOptional({
    type: LoggedInCheckDto,
    description: 'How a page shows a logged-out state; a redirect to the login URL always does.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LoggedInCheckDto)
  check?: LoggedInCheckDto;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_LOGOUT_PATTERNS,
    example: ['^/account/end-session'],
    description:
      "RE2 regular expressions searched in a link's path and query (case-sensitive; `(?i)` for not): links of the profile's hosts that match one are the site's own logout links, which a crawl with this profile never follows (skipped `logout_link`). Links naming logout, log-out, log_out, signout, sign-out, sign_out or logoff as a path segment or query name or value are never followed anyway.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LOGOUT_PATTERNS)
  @IsString({ each: true })
  @MaxLength(MAX_LOGOUT_PATTERN_LENGTH, { each: true })
  @IsLogoutPattern({ each: true })
  logout_patterns?: string[];

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: MAX_SESSION_TTL_SECONDS,
    example: 3600,
    description: 'Renew a session older than this before its next page. Absent or null: only when a page shows it logged out.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_SESSION_TTL_SECONDS)
  session_ttl_seconds?: number | null;
}

/** PUT /auth-profiles/{id}: every field optional; a given `login` or `check` replaces the stored one. */
export class UpdateAuthProfileDto extends PartialType(CreateAuthProfileDto) {}

export class BrowserStepView {
  @ApiProperty({ enum: ['goto', 'fill', 'click', 'wait_for'] }) action!: string;
  @ApiPropertyOptional() selector?: string;
  @ApiPropertyOptional({ enum: ['username', 'password'] }) credential?: string;
  @ApiPropertyOptional() text?: string;
  @ApiPropertyOptional() url?: string;
  @ApiPropertyOptional() url_path?: string;
}

export class LoginView {
  @ApiProperty({ enum: ['form', 'browser'] }) type!: 'form' | 'browser';
  @ApiProperty() url!: string;
  @ApiPropertyOptional({ description: '`form` only.' }) username_field?: string;
  @ApiPropertyOptional({ description: '`form` only.' }) password_field?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: '`form` only.' }) csrf_field?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: '`form` only.' }) form_selector?: string | null;
  @ApiPropertyOptional({ type: [BrowserStepView], description: '`browser` only.' }) steps?: BrowserStepView[];
  @ApiProperty({ example: '••••', description: 'Always the mask.' }) username!: string;
  @ApiProperty({ example: '••••', description: 'Always the mask.' }) password!: string;
}

export class LoggedInCheckView {
  @ApiProperty({ type: String, nullable: true }) logged_in_selector!: string | null;
  @ApiProperty({ type: String, nullable: true }) logged_out_selector!: string | null;
  @ApiProperty({ type: String, nullable: true }) logged_out_path!: string | null;
  @ApiProperty({ type: String, nullable: true }) session_cookie!: string | null;
  @ApiProperty({ type: [Number] }) logged_out_statuses!: number[];
}

export class AuthSessionView {
  @ApiProperty({
    enum: ['none', 'active', 'failing'],
    description: '`failing`: its last logins failed; pages naming it fail `auth_failed` until the login is updated.',
  })
  state!: string;
  @ApiProperty({ type: String, nullable: true, description: 'When the current session was obtained.' }) logged_in_at!: string | null;
  @ApiProperty({ description: 'Logins so far.' }) logins!: number;
  @ApiProperty({ description: 'Logins that failed in a row.' }) failures!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last login failed (never a credential).' }) last_error!: string | null;
}

export class AuthProfileResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) hosts!: string[];
  @ApiProperty({ type: LoginView }) login!: LoginView;
  @ApiProperty({ type: LoggedInCheckView }) check!: LoggedInCheckView;
  @ApiProperty({ type: [String], description: "The site's own logout links (RE2 on path and query): a crawl never follows them." })
  logout_patterns!: string[];
  @ApiProperty({ type: Number, nullable: true }) session_ttl_seconds!: number | null;
  @ApiProperty({ type: AuthSessionView }) session!: AuthSessionView;
  @ApiProperty() organization_id!: string;
  @ApiProperty() user_id!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class AuthProfileListResponse {
  @ApiProperty({ type: [AuthProfileResponse] }) auth_profiles!: AuthProfileResponse[];
}
