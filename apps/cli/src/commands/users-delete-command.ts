import type { Command } from 'commander';
import { CliUsageError } from '../errors';
import { EXIT } from '../exit-codes';
import type { CommandKit } from '../program';

const HELP_AFTER = `
Deletes the user (tenant) and everything it owns in every store, through the running service:
its keys stop working on every replica at once, its running jobs are cancelled, then its jobs,
results, archived pages, sites, schemas, webhooks, monitors, learned programs and provider keys
go (docs/api.md "Users"). It cannot be undone, hence --yes. Needs an admin key (GLEANER_API_KEY).
The command waits until nothing of the user is left; if it is interrupted, the deletion goes on
in the service (the user is listed as "deleting"), and running it again waits for the end.

Example:
  $ gleaner users delete 01JD0000000000000000000000 --yes`;

/**
 * `gleaner users delete ID --yes`: unlike `users create` and `users list` (local, on the store), this one
 * calls DELETE /api/v1/users/{id}: only the running service reaches its replicas' key caches and the
 * crawlers running the user's jobs.
 */
export function registerUsersDelete(users: Command, kit: CommandKit): void {
  users
    .command('delete')
    .description('delete a user (tenant) and everything it owns (DELETE /api/v1/users/{id}, admin key)')
    .argument('<user>', 'the user id (gleaner users list)')
    .option('--yes', 'confirm: the deletion cannot be undone')
    .helpOption('-h, --help', 'display help for command')
    .allowExcessArguments(false)
    .addHelpText('after', HELP_AFTER)
    .action(
      kit.action(async (ctx, [id], opts: { yes?: boolean }) => {
        if (!opts.yes) throw new CliUsageError(`deleting user ${id} cannot be undone: add --yes to confirm`);
        await ctx.client().json<unknown>('DELETE', `/api/v1/users/${encodeURIComponent(id!)}`, { signal: ctx.signal, timeoutMs: 0 });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify({ deleted: id })}\n` : `User ${id} deleted, with everything it owned.\n`);
        return EXIT.ok;
      }),
    );
}
