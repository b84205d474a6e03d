import { Injectable } from '@nestjs/common';
import type { AuthProfileRef } from '@app/fetch';

/** A profile that just became `failing` (its MAX_LOGIN_FAILURES-th login in a row failed): announced once, by the replica that recorded it. */
export interface AuthProfileFailing {
  ref: AuthProfileRef;
  name: string;
  failures: number;
  /** The last login's failure, as the profile's `session.last_error` shows it (never a credential). */
  reason: string;
  /** Logins the profile made so far (with the id, what tells one failing spell from the next). */
  logins: number;
  occurred_at: string;
}

export type AuthProfileListener = (event: AuthProfileFailing) => Promise<void>;

/**
 * Observers of auth profiles (the webhooks lib announces `auth_profile.failing` on the job whose page met the
 * failure): auth-profiles announces, other libs listen, so it depends on none of them. A failing listener never
 * fails the page.
 */
@Injectable()
export class AuthProfileEvents {
  private readonly listeners: AuthProfileListener[] = [];

  register(listener: AuthProfileListener): void {
    this.listeners.push(listener);
  }

  async failing(event: AuthProfileFailing, onError: (error: unknown) => void): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch (error) {
        onError(error);
      }
    }
  }
}
