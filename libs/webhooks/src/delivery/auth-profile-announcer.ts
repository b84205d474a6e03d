import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AuthProfileEvents, type AuthProfileFailing } from '@app/auth-profiles';
import { JobsRepository } from '@app/jobs';
import { LOGGER, type AppLogger } from '@app/observability';
import { WebhookDispatcherService } from './webhook-dispatcher.service';

/**
 * `auth_profile.failing` (docs/auth-profiles.md "Failing"): when a login failure makes a profile failing, the
 * event goes to the webhooks of the job whose page met it (its targets that subscribe), stored in the outbox and
 * signed like every event. A login outside a job (none today) is announced to nobody; the log line and the
 * metric still tell.
 */
@Injectable()
export class AuthProfileAnnouncer implements OnModuleInit {
  constructor(
    private readonly events: AuthProfileEvents,
    private readonly jobs: JobsRepository,
    private readonly dispatcher: WebhookDispatcherService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    this.events.register((event) => this.announce(event));
  }

  async announce(event: AuthProfileFailing): Promise<void> {
    if (!event.ref.job) return;
    const job = await this.jobs.findForWorker(event.ref.job);
    if (!job) {
      this.logger.warn({ profile: event.ref.id, job_id: event.ref.job }, 'auth_profile.failing not announced: the job is gone');
      return;
    }
    await this.dispatcher.dispatch({
      type: 'auth_profile.failing',
      job,
      data: {
        auth_profile: { id: event.ref.id, name: event.name },
        state: 'failing',
        failures: event.failures,
        reason: event.reason,
      },
      occurred_at: event.occurred_at,
    });
  }
}
