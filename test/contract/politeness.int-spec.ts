import { MemoryPoliteness, RedisPoliteness } from '@app/politeness';
import { describeWith, serverUrl } from '../harness/require-server';
import { politenessContract } from './politeness.contract';

const backoff = { baseMs: 200, maxMs: 600 };
const settings = { backoffBaseMs: backoff.baseMs, backoffMaxMs: backoff.maxMs };
/**
 * Redis' clock cannot be moved: a burst must reach it within one pause in real time, so its pauses are
 * long enough for a busy machine (a 200 ms pause once ended between two calls of one burst at a load of 23).
 */
const redisBackoff = { baseMs: 1500, maxMs: 4000 };
const redisSettings = { backoffBaseMs: redisBackoff.baseMs, backoffMaxMs: redisBackoff.maxMs };

describe('PolitenessContract: MemoryPoliteness', () => {
  // The in-process adapter takes its clock as a parameter: the test moves it instead of waiting.
  let offset = 0;
  const clock = () => Date.now() + offset;
  politenessContract(() => ({
    create: async () => {
      offset = 0;
      return new MemoryPoliteness(settings, clock);
    },
    // Embedded mode has one process: every caller shares the one adapter.
    peer: async (of) => of,
    passTime: async (ms) => {
      offset += ms;
    },
    backoff,
  }));
});

describeWith(['redis'], 'PolitenessContract: RedisPoliteness', () => {
  const keyPrefix = `gleaner-test-pol-${process.pid}-${Date.now().toString(36)}`;
  politenessContract(() => ({
    create: async () => new RedisPoliteness({ redisUrl: serverUrl('redis')!, keyPrefix, settings: redisSettings }),
    peer: async () => new RedisPoliteness({ redisUrl: serverUrl('redis')!, keyPrefix, settings: redisSettings }),
    // The scripts read Redis' own clock, which the test cannot move: a real wait for the time asked.
    // A busy machine only makes it longer; the tests assert outcomes afterwards, never durations.
    passTime: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    backoff: redisBackoff,
  }));
});
