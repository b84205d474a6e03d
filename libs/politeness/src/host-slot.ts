import { sleep } from '@app/core';
import { keepSlot, type Acquisition, type HostRequestPolicy, type PolitenessPort } from './politeness.port';

export type HostSlotResult<T> = { ran: true; value: T } | ({ ran: false } & Extract<Acquisition, { granted: false }>);

/**
 * Runs `fn` while holding one of the host's slots: acquire → keep the slot's lease renewed while `fn`
 * runs → release (which starts the host's spacing clock), whatever `fn` does. When the host refuses (paused,
 * spaced, busy), `fn` does not run and the refusal says when to ask again: the caller serves another host
 * or waits (whenHostFree).
 */
export async function withHostSlot<T>(
  port: PolitenessPort,
  host: string,
  policy: HostRequestPolicy,
  fn: () => Promise<T>,
  options: SlotOptions<T> = {},
): Promise<HostSlotResult<T>> {
  const slot = await port.acquire(host, policy);
  if (!slot.granted) return { ran: false, ...slot };
  const stopKeeping = keepSlot(port, host, slot.token, policy.leaseMs);
  let answered = false;
  try {
    const value = await fn();
    answered = options.answered?.(value) === true;
    return { ran: true, value };
  } finally {
    stopKeeping();
    // A release that fails leaves the slot to its lease, which ends soon: nothing to undo (and a streak it
    // did not end is ended by the host's next answer).
    await port.release(host, slot.token, answered ? { answered } : undefined).catch(() => undefined);
  }
}

export interface SlotOptions<T> {
  /**
   * Whether `fn`'s value is a normal answer of the host: the release then also reports the success
   * (PolitenessPort.reportSuccess), in the same call to the port.
   */
  answered?: (value: T) => boolean;
}

/**
 * Runs `fn` under a slot of the host as soon as the host allows (asking again when it says). `beforeTry`
 * runs before every attempt: the caller stops the wait by throwing from it (a stopped crawl). `signal`
 * only cuts the waits short.
 */
export async function whenHostFree<T>(
  port: PolitenessPort,
  host: string,
  policy: HostRequestPolicy,
  fn: () => Promise<T>,
  options: { signal?: AbortSignal; beforeTry?: () => void } = {},
): Promise<T> {
  for (;;) {
    options.beforeTry?.();
    const result = await withHostSlot(port, host, policy, fn);
    if (result.ran) return result.value;
    await sleep(Math.max(10, result.retryInMs), options.signal);
  }
}
