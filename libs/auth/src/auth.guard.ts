import { createParamDecorator, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError } from '@app/core';
import { RATE_LIMITER, type RateLimiterPort } from '@app/events';
import { METRICS, Metrics } from '@app/observability';
import { AuthService } from './auth.service';
import { describeRequirement, satisfies, type Caller, type Requirement, type Scope } from './caller';

const REQUIREMENT = 'gleaner:requirement';
const PUBLIC = 'gleaner:public';
const OWN_COUNT = 'gleaner:counts-own-requests';

/** The route needs this scope (or a full-access key). */
export const RequiresScope = (scope: Scope) => SetMetadata(REQUIREMENT, { scope } satisfies Requirement);
/** The route needs a full-access key. */
export const RequiresFullAccess = () => SetMetadata(REQUIREMENT, { fullAccess: true } satisfies Requirement);
/** The route needs an admin user's full-access key. */
export const RequiresAdmin = () => SetMetadata(REQUIREMENT, { admin: true } satisfies Requirement);
/** Any valid key (the route's operations check their own scopes: /mcp, whose tools call the REST routes). */
export const RequiresKey = () => SetMetadata(REQUIREMENT, { anyKey: true } satisfies Requirement);
/**
 * The handler counts requests against the key's rate limit itself (KeyRateLimit), not the guard:
 * /mcp, where a tool call is counted by the REST route it calls and every other message by the handler.
 */
export const CountsOwnRequests = () => SetMetadata(OWN_COUNT, true);
/** No credential needed (health, metrics, docs, problem pages, signed downloads). */
export const Public = () => SetMetadata(PUBLIC, true);

interface RequestWithCaller {
  headers: Record<string, string | string[] | undefined>;
  caller?: Caller;
  /** Admitted by `AuthGuard.admit` before its body was read (create-app's onRequest hook): the guard lets it through. */
  gleanerAdmitted?: boolean;
}

type ReplyHeaders = { header(name: string, value: string | number): unknown };

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<RequestWithCaller>();
  if (!request.caller) throw new AppError('unauthorized', 'Missing API key.');
  return request.caller;
});

/** What a route's decorators ask of the guard. */
export interface RoutePolicy {
  controller: object;
  isPublic: boolean;
  countsOwnRequests: boolean;
  requirement: Requirement;
}

/** A route's policy from its decorators (the handler's win over its controller's), as Reflector.getAllAndOverride reads them. */
export function routePolicyOf(controller: object, handler: object): RoutePolicy {
  const read = <T>(key: string): T | undefined =>
    (Reflect.getMetadata(key, handler) as T | undefined) ?? (Reflect.getMetadata(key, controller) as T | undefined);
  return {
    controller,
    isPublic: read<boolean>(PUBLIC) === true,
    countsOwnRequests: read<boolean>(OWN_COUNT) === true,
    requirement: read<Requirement>(REQUIREMENT) ?? { fullAccess: true },
  };
}

/** The per-key rate limit: RateLimit-* headers on the answer, 429 with Retry-After past it. */
@Injectable()
export class KeyRateLimit {
  constructor(
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiterPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  async consume(caller: Caller, reply: { header(name: string, value: string | number): unknown }): Promise<void> {
    const limit = this.config.rateLimitPerMinute;
    const decision = await this.rateLimiter.consume(`key:${caller.keyId}`, limit, 60_000);
    const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
    reply.header('RateLimit-Limit', limit);
    reply.header('RateLimit-Remaining', Math.max(0, decision.remaining));
    reply.header('RateLimit-Reset', resetSeconds);
    if (!decision.allowed) {
      this.metrics.rateLimited.inc();
      throw new AppError('rate-limited', `Rate limit of ${limit} requests per minute exceeded for this API key.`, {
        retryAfterSeconds: resetSeconds,
      });
    }
  }
}

/**
 * Global guard: authenticates the bearer key, applies the per-key rate limit (RateLimit-* headers
 * on every authenticated response, 429 with Retry-After past it), then checks the route's requirement.
 * Routes without a requirement and not marked @Public() need a full-access key (safe default).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** Each route's decorators, read once (metadata is fixed at start; reading it cost a share of every request). */
  private readonly routes = new WeakMap<object, RoutePolicy>();

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimit: KeyRateLimit,
  ) {}

  private policyOf(context: ExecutionContext): RoutePolicy {
    const handler = context.getHandler();
    const controller = context.getClass();
    const known = this.routes.get(handler);
    if (known && known.controller === controller) return known;
    const targets = [handler, controller];
    const policy: RoutePolicy = {
      controller,
      isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC, targets) === true,
      countsOwnRequests: this.reflector.getAllAndOverride<boolean>(OWN_COUNT, targets) === true,
      requirement: this.reflector.getAllAndOverride<Requirement>(REQUIREMENT, targets) ?? { fullAccess: true },
    };
    this.routes.set(handler, policy);
    return policy;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithCaller>();
    if (request.gleanerAdmitted === true) return true;
    await this.admit(request, http.getResponse<ReplyHeaders>(), this.policyOf(context));
    return true;
  }

  /**
   * The key, the rate limit and the route's requirement, in that order (401, 429, 403). The API runs it as
   * soon as the route is known, before the body is looked at (docs/api.md "Statuses": a caller without a
   * valid key learns nothing about what it sent); the guard then lets the admitted request through.
   */
  async admit(request: RequestWithCaller, reply: ReplyHeaders, policy: RoutePolicy): Promise<void> {
    if (policy.isPublic) return;
    const header = request.headers.authorization;
    const caller = await this.auth.authenticate(Array.isArray(header) ? header[0] : header);
    request.caller = caller;

    if (!policy.countsOwnRequests) await this.rateLimit.consume(caller, reply);

    const requirement = policy.requirement;
    if (!satisfies(caller, requirement)) {
      throw new AppError('insufficient-scope', `This endpoint needs ${describeRequirement(requirement)}.`);
    }
    request.gleanerAdmitted = true;
  }
}
