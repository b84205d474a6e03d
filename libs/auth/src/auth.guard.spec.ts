import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { AuthGuard, CountsOwnRequests, Public, RequiresFullAccess, RequiresScope, routePolicyOf, type KeyRateLimit } from './auth.guard';
import type { AuthService } from './auth.service';
import type { Caller } from './caller';

@RequiresScope('jobs')
class JobsRoutes {
  read() {}
  @RequiresFullAccess()
  purge() {}
  @Public()
  health() {}
  @CountsOwnRequests()
  ownCount() {}
}

@RequiresScope('extract')
class ExtractRoutes {
  read() {}
}

/** A controller that inherits its handler from another with a different requirement. */
@RequiresScope('jobs')
class InheritedRoutes extends ExtractRoutes {}

/** The guard reads each route's decorators once and keeps them per route: every route still gets its own policy. */
describe('AuthGuard', () => {
  const jobsKey: Caller = { userId: 'u', organizationId: 'o', keyId: 'k', scopes: ['jobs'], fullAccess: false, isAdmin: false };
  let counted: string[];
  let guard: AuthGuard;

  beforeEach(() => {
    counted = [];
    const auth = { authenticate: async (header?: string) => (header === 'Bearer ok' ? jobsKey : Promise.reject(new Error('401'))) };
    const rateLimit = { consume: async (caller: Caller) => void counted.push(caller.keyId) };
    guard = new AuthGuard(new Reflector(), auth as unknown as AuthService, rateLimit as unknown as KeyRateLimit);
  });

  const call = (controller: object, handler: (...args: unknown[]) => unknown, authorization?: string) =>
    guard.canActivate(
      new ExecutionContextHost([{ headers: { authorization } }, { header: () => undefined }], controller as never, handler),
    );

  it('applies each route’s requirement, the same on every call', async () => {
    for (let round = 0; round < 2; round++) {
      await expect(call(JobsRoutes, JobsRoutes.prototype.read, 'Bearer ok')).resolves.toBe(true);
      await expect(call(ExtractRoutes, ExtractRoutes.prototype.read, 'Bearer ok')).rejects.toMatchObject({ slug: 'insufficient-scope' });
      await expect(call(JobsRoutes, JobsRoutes.prototype.purge, 'Bearer ok')).rejects.toMatchObject({ slug: 'insufficient-scope' });
      // The same handler function under another controller: that controller's requirement.
      await expect(call(InheritedRoutes, ExtractRoutes.prototype.read, 'Bearer ok')).resolves.toBe(true);
    }
  });

  it('lets public routes through without a key and counts the rate limit unless the route counts its own', async () => {
    await expect(call(JobsRoutes, JobsRoutes.prototype.health)).resolves.toBe(true);
    await expect(call(JobsRoutes, JobsRoutes.prototype.read)).rejects.toThrow('401');
    await call(JobsRoutes, JobsRoutes.prototype.read, 'Bearer ok');
    await call(JobsRoutes, JobsRoutes.prototype.ownCount, 'Bearer ok');
    await call(JobsRoutes, JobsRoutes.prototype.ownCount, 'Bearer ok');
    expect(counted).toEqual(['k']);
  });

  it('admits a request once, before its body is read: the guard then lets it through without counting it again', async () => {
    const request: { headers: Record<string, string>; caller?: Caller; gleanerAdmitted?: boolean } = {
      headers: { authorization: 'Bearer ok' },
    };
    await guard.admit(request, { header: () => undefined }, routePolicyOf(JobsRoutes, JobsRoutes.prototype.read));
    expect([request.caller, request.gleanerAdmitted]).toEqual([jobsKey, true]);
    await expect(
      guard.canActivate(new ExecutionContextHost([request, { header: () => undefined }], JobsRoutes as never, JobsRoutes.prototype.read)),
    ).resolves.toBe(true);
    expect(counted).toEqual(['k']);
    const refused = { headers: { authorization: 'Bearer ok' } };
    await expect(
      guard.admit(refused, { header: () => undefined }, routePolicyOf(JobsRoutes, JobsRoutes.prototype.purge)),
    ).rejects.toMatchObject({
      slug: 'insufficient-scope',
    });
    expect(refused).not.toHaveProperty('gleanerAdmitted');
  });

  it('reads a policy from the decorators as the guard does (the handler over its controller)', () => {
    expect(routePolicyOf(JobsRoutes, JobsRoutes.prototype.purge).requirement).toEqual({ fullAccess: true });
    expect(routePolicyOf(JobsRoutes, JobsRoutes.prototype.read).requirement).toEqual({ scope: 'jobs' });
    expect(routePolicyOf(JobsRoutes, JobsRoutes.prototype.health).isPublic).toBe(true);
    expect(routePolicyOf(JobsRoutes, JobsRoutes.prototype.ownCount).countsOwnRequests).toBe(true);
  });
});
