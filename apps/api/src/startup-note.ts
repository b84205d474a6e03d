import type { BootstrapOutcome } from '@app/auth';
import type { Role } from '@app/config';

/** How an operator makes another admin key (README "Quick start", docs/operations.md "Users"). */
export const NEW_ADMIN_KEY_HINT = 'npx gleaner users create --name NAME --admin';

/**
 * What the API prints about the admin key once it listens (plain text, outside the JSON log; never logged):
 * the generated key once, at the start that made it; at every other start how to make another one. A cluster
 * role never generates one (its output goes to shared logs), so with an empty store it says how to make it.
 */
export function startupNote(outcome: BootstrapOutcome, role: Role, port: number): string {
  switch (outcome.kind) {
    case 'generated':
      return (
        `\n  Gleaner admin API key (generated; store it now, it will not be shown again):\n\n    ${outcome.secret}\n\n` +
        `  Try: curl -H "Authorization: Bearer ${outcome.secret}" http://localhost:${port}/api/v1/jobs\n` +
        `  Lost it? Make another admin key where the service keeps its data: ${NEW_ADMIN_KEY_HINT}\n\n`
      );
    case 'from_setting':
      return (
        `\n  Gleaner admin API key created from GLEANER_BOOTSTRAP_KEY (${outcome.keyPrefix}...).\n` +
        `  Another admin key: ${NEW_ADMIN_KEY_HINT}\n\n`
      );
    case 'exists':
      return role === 'all'
        ? `  Admin API key: shown once, at the first start. Another one: ${NEW_ADMIN_KEY_HINT}${where(role)}\n`
        : `  Another admin API key: ${NEW_ADMIN_KEY_HINT}${where(role)}\n`;
    case 'claimed':
      return `  Admin API key: made by another process or an earlier start. If no key works, make one: ${NEW_ADMIN_KEY_HINT}${where(role)}\n`;
    case 'none':
      return (
        `\n  No API key exists yet, and a cluster API role does not make one (its output goes to shared logs).\n` +
        `  Make the admin key with this service's MONGODB_URI, REDIS_URL and GLEANER_SECRET set: ${NEW_ADMIN_KEY_HINT}\n` +
        `  (in a container: docs/operations-deploy.md "The admin key"), or set GLEANER_BOOTSTRAP_KEY.\n\n`
      );
  }
}

function where(role: Role): string {
  return role === 'all' ? ' (where the service keeps DATA_DIR)' : " (with this service's MONGODB_URI, REDIS_URL and GLEANER_SECRET)";
}
