import { MemoryPoliteness, RedisPoliteness } from '@app/politeness';
import { describeWith, serverUrl } from '../harness/require-server';
import { politenessContract } from './politeness.contract';

const backoff = { baseMs: 200, maxMs: 600 };
const settings = { backoffBaseMs: backoff.baseMs, backoffMaxMs: backoff.maxMs };

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
    create: async () => new RedisPoliteness({ redisUrl: serverUrl('redis')!, keyPrefix, settings }),
    peer: async () => new RedisPoliteness({ redisUrl: serverUrl('redis')!, keyPrefix, settings }),
    // The scripts read Redis' own clock, which the test cannot move: a real wait for the time asked.
    // A busy machine only makes it longer; the tests assert outcomes afterwards, never durations.
    passTime: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    backoff,
  }));
});
