/** Scopes a key may be limited to. A key with no scopes is a full-access key. */
export const SCOPES = ['extract', 'crawl', 'jobs'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: resolved from the API key on every request and passed explicitly to services. */
export interface Caller {
  userId: string;
  organizationId: string;
  keyId: string;
  scopes: Scope[];
  fullAccess: boolean;
  isAdmin: boolean;
}

/** What an endpoint needs: one scope, or a full-access key, or an admin's full-access key, or any valid key (its operations check more). */
export type Requirement = { scope: Scope } | { fullAccess: true } | { admin: true } | { anyKey: true };

export function satisfies(caller: Caller, requirement: Requirement): boolean {
  if ('scope' in requirement) return caller.fullAccess || caller.scopes.includes(requirement.scope);
  if ('fullAccess' in requirement) return caller.fullAccess;
  if ('anyKey' in requirement) return true;
  return caller.fullAccess && caller.isAdmin;
}

export function describeRequirement(requirement: Requirement): string {
  if ('scope' in requirement) return `the "${requirement.scope}" scope`;
  if ('fullAccess' in requirement) return 'a full-access key';
  if ('anyKey' in requirement) return 'an API key';
  return "an admin user's full-access key";
}
