import { LocalEventBus, RedisEventBus } from '@app/events';
import { describeWith, serverUrl } from '../harness/require-server';
import { eventBusContract } from './event-bus.contract';

describe('EventBusContract: LocalEventBus', () => {
  eventBusContract(() => ({
    create: async () => new LocalEventBus(),
    // One process, one bus: every "replica" in embedded mode is the same instance.
    peer: async (of) => of,
  }));
});

describeWith(['redis'], 'EventBusContract: RedisEventBus', () => {
  const channelPrefix = `gleaner-test-${process.pid}-${Date.now().toString(36)}:`;
  eventBusContract(() => ({
    create: async () => new RedisEventBus({ redisUrl: serverUrl('redis')!, channelPrefix }),
    peer: async () => new RedisEventBus({ redisUrl: serverUrl('redis')!, channelPrefix }),
  }));
});
