import { isStoreUnavailable } from '@app/core';

/** How often a step that met a store outage is tried again. */
export const STORE_RETRY_MS = 1000;

/**
 * Runs `step` until it gets past a store outage (any other error is thrown as it is). For the follow-ups of a
 * change already stored (the events and webhooks of a finished job or page): dropping them would lose them for
 * good, and the work that made the change would not be redone. The step must be safe to repeat (dedupe keys).
 */
export async function pastStoreOutage<T>(step: () => Promise<T>, onOutage?: (error: unknown) => void): Promise<T> {
  for (let first = true; ; first = false) {
    try {
      return await step();
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      if (first) onOutage?.(error);
      await new Promise((resolve) => setTimeout(resolve, STORE_RETRY_MS));
    }
  }
}
