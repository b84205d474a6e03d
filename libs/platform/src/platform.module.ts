import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  EVENT_BUS,
  LocalEventBus,
  MemoryRateLimiter,
  RATE_LIMITER,
  RedisEventBus,
  RedisRateLimiter,
  type EventBusPort,
  type RateLimiterPort,
} from '@app/events';
import { HOST_MODE_MEMORY, InMemoryHostModeMemory, type HostModeMemory } from '@app/fetch';
import { LOGGER, METRICS, Metrics, type AppLogger } from '@app/observability';
import { MemoryPoliteness, POLITENESS, RedisHostModeMemory, RedisPoliteness, type PolitenessPort } from '@app/politeness';
import { Redis } from 'ioredis';
import {
  BullQueueAdapter,
  CRAWL_PAGES_QUEUE,
  DELIVERY_LEDGER,
  RedisDeliveryLedger,
  StoreDeliveryLedger,
  type DeliveryLedgerPort,
  MemoryQueueAdapter,
  QUEUE,
  RedisListQueueAdapter,
  RoutedQueueAdapter,
  StoreQueueAdapter,
  type QueuePort,
} from '@app/queue';
import { DOCUMENT_STORE, MongoDocumentStore, SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { join } from 'node:path';
import { SECRET_SEALER, TENANT_ERASERS, TenantErasers } from '@app/core';
import { ARCHIVE_BLOBS, FileBlobStore, GridFsBlobStore, type ArchiveBlobStore } from '@app/archive';
import { createSealer } from './sealer.provider';

export interface PlatformPorts {
  store: DocumentStore;
  queue: QueuePort;
  bus: EventBusPort;
  rateLimiter: RateLimiterPort;
  /** Per-host politeness shared by every crawl of every replica. */
  politeness: PolitenessPort;
  /** The fetch mode auto chose per host. */
  hostModes: HostModeMemory;
  /** The page archive's bytes (docs/archive.md): GridFS in a cluster, files under DATA_DIR/archive embedded. */
  archiveBlobs: ArchiveBlobStore;
  /** Page tasks' delivery counts (docs/crawl.md "A page that kills its worker"): Redis in a cluster, the store embedded. */
  deliveries: DeliveryLedgerPort;
  /** Closes what the ports above share (the cluster's politeness connection). */
  closeShared: () => Promise<void>;
}

/**
 * Chooses the adapters of every port from the configuration: cluster mode (MONGODB_URI and
 * REDIS_URL) gets MongoDB, Bull, Redis pub/sub and a Redis rate limiter; embedded mode gets
 * SQLite under DATA_DIR, a store-backed queue, an in-process bus and an in-memory limiter.
 * Business code only sees the ports.
 */
export async function openPorts(config: AppConfig): Promise<PlatformPorts> {
  const settings = { backoffBaseMs: config.rateLimitBackoffBaseMs, backoffMaxMs: config.rateLimitBackoffMaxMs };
  if (config.deployment === 'cluster') {
    // A store operation waits this long for an unreachable server, then fails as StoreUnavailableError: the
    // API's 503 comes within it (docs/operations.md "The store goes down").
    const store = await MongoDocumentStore.connect(config.mongodbUri!, { serverSelectionTimeoutMS: 5000 });
    const archiveBlobs = await GridFsBlobStore.connect(config.mongodbUri!, { serverSelectionTimeoutMS: 5000 });
    // Crawl page tasks go through a lean Redis list queue (a page's hand-off in 7 Redis commands, nothing per
    // waiting page: docs/crawl.md "Page tasks"); every other queue is Bull.
    const queue = new RoutedQueueAdapter(
      new BullQueueAdapter({
        redisUrl: config.redisUrl!,
        stalledAfterMs: config.queueStalledMs,
        stalledCheckMs: config.queueStalledCheckMs,
      }),
      {
        [CRAWL_PAGES_QUEUE]: new RedisListQueueAdapter({
          redisUrl: config.redisUrl!,
          stalledAfterMs: config.queueStalledMs,
          stalledCheckMs: config.queueStalledCheckMs,
        }),
      },
    );
    const bus = new RedisEventBus({ redisUrl: config.redisUrl! });
    const rateLimiter = new RedisRateLimiter({ redisUrl: config.redisUrl!, keyPrefix: 'gleaner:rl' });
    const shared = new Redis(config.redisUrl!);
    shared.on('error', () => undefined); // surfaced by the failing call
    const politeness = new RedisPoliteness({ client: shared, settings });
    const closeShared = async () => {
      if (shared.status === 'end') return;
      await Promise.race([shared.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
      shared.disconnect();
    };
    return {
      store,
      queue,
      bus,
      rateLimiter,
      politeness,
      hostModes: new RedisHostModeMemory(shared),
      archiveBlobs,
      deliveries: new RedisDeliveryLedger({ client: shared }),
      closeShared,
    };
  }
  const store = SqliteDocumentStore.open({ file: join(config.dataDir, 'gleaner.db'), synchronous: config.sqliteSynchronous });
  // Crawl page tasks stay in the process: nothing outlives it, and after a restart the crawl actor
  // re-sends the task of every page it finds running (docs/crawl.md "Embedded page tasks").
  const queue = new RoutedQueueAdapter(new StoreQueueAdapter({ store, leaseMs: config.queueStalledMs }), {
    [CRAWL_PAGES_QUEUE]: new MemoryQueueAdapter(),
  });
  return {
    store,
    queue,
    bus: new LocalEventBus(),
    rateLimiter: new MemoryRateLimiter(),
    politeness: new MemoryPoliteness(settings),
    hostModes: new InMemoryHostModeMemory(),
    archiveBlobs: new FileBlobStore(join(config.dataDir, 'archive')),
    deliveries: await StoreDeliveryLedger.open(store),
    closeShared: async () => undefined,
  };
}

const PLATFORM_SHARED = Symbol('PLATFORM_SHARED');

class PlatformShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(EVENT_BUS) private readonly bus: EventBusPort,
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiterPort,
    @Inject(POLITENESS) private readonly politeness: PolitenessPort,
    @Inject(PLATFORM_SHARED) private readonly shared: { close: () => Promise<void> },
    @Inject(ARCHIVE_BLOBS) private readonly archiveBlobs: ArchiveBlobStore,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // Order matters: the queue may still write to the store while it hands work back.
    await this.queue.close().catch(() => undefined);
    await this.bus.close().catch(() => undefined);
    await this.rateLimiter.close().catch(() => undefined);
    await this.politeness.close().catch(() => undefined);
    await this.shared.close().catch(() => undefined);
    await this.archiveBlobs.close().catch(() => undefined);
    await this.store.close().catch(() => undefined);
  }
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: AppConfig, ports: PlatformPorts, logger: AppLogger, metrics: Metrics): DynamicModule {
    return {
      module: PlatformModule,
      global: true,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: METRICS, useValue: metrics },
        { provide: Metrics, useValue: metrics },
        { provide: DOCUMENT_STORE, useValue: ports.store },
        { provide: QUEUE, useValue: ports.queue },
        { provide: EVENT_BUS, useValue: ports.bus },
        { provide: RATE_LIMITER, useValue: ports.rateLimiter },
        { provide: POLITENESS, useValue: ports.politeness },
        { provide: HOST_MODE_MEMORY, useValue: ports.hostModes },
        { provide: PLATFORM_SHARED, useValue: { close: ports.closeShared } },
        { provide: ARCHIVE_BLOBS, useValue: ports.archiveBlobs },
        { provide: DELIVERY_LEDGER, useValue: ports.deliveries },
        { provide: SECRET_SEALER, useValue: createSealer(config) },
        { provide: TENANT_ERASERS, useValue: new TenantErasers() },
        PlatformShutdown,
      ],
      exports: [
        APP_CONFIG,
        LOGGER,
        METRICS,
        Metrics,
        DOCUMENT_STORE,
        QUEUE,
        EVENT_BUS,
        RATE_LIMITER,
        POLITENESS,
        HOST_MODE_MEMORY,
        ARCHIVE_BLOBS,
        DELIVERY_LEDGER,
        SECRET_SEALER,
        TENANT_ERASERS,
      ],
    };
  }
}
