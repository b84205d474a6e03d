import { AddressGuard } from './address-guard';
import { BrowserContexts } from './browser-contexts';
import type { BrowserPoolOptions } from './browser-pool';
import { SessionRouter } from './browser-routing';
import { GuardedProxy } from './guarded-proxy';
import { ProxyPool } from './proxy-pool/proxy-pool';

/** A stand-in pool whose browser records what is asked of it (no Chromium: the renderer's suites run that). */
function fakePool(opts: { failContext?: boolean } = {}) {
  const log: string[] = [];
  const contextOptions: Array<Record<string, unknown>> = [];
  let poolOptions: BrowserPoolOptions | undefined;
  const context = {
    addInitScript: async () => void log.push('init script'),
    route: async () => void log.push('route'),
    close: async () => void log.push('context closed'),
  };
  const lease = {
    browser: {
      newContext: async (options: Record<string, unknown>) => {
        contextOptions.push(options);
        if (opts.failContext) throw new Error('browser gone');
        return context;
      },
    },
    release: async () => void log.push('lease released'),
  };
  const pool = {
    acquire: async () => lease,
    stats: () => ({
      browsers: 1,
      retiringBrowsers: 0,
      activeLeases: 1,
      waiting: 0,
      launches: 1,
      leasesServed: 1,
      waitingForMemory: 0,
      deferredForMemory: 0,
      killed: 0,
    }),
    close: async () => void log.push('pool closed'),
  };
  const build = (options: BrowserPoolOptions) => {
    poolOptions = options;
    return pool as never;
  };
  return { log, contextOptions, build, poolOptions: () => poolOptions };
}

const guard = new AddressGuard();
const settings = { guard, pool: { maxBrowsers: 1 }, userAgent: 'UA', viewport: { width: 800, height: 600 } };
const router = () => new SessionRouter(guard, new Set(), undefined, undefined);
/** An own guard proxy that records its close. */
const ownProxy = (log: string[]) => {
  const own = new GuardedProxy(guard);
  const close = own.close.bind(own);
  own.close = async () => {
    log.push('own proxy closed');
    await close();
  };
  return own;
};

describe('BrowserContexts', () => {
  let contexts: BrowserContexts | undefined;
  afterEach(async () => contexts?.close());

  it('launches the pool through its guard proxy, opens a readied context with the settings, and closes it once, in order', async () => {
    const fake = fakePool();
    contexts = new BrowserContexts(settings, fake.build);
    expect(contexts.stats()).toMatchObject({ browsers: 0, openContexts: 0, proxyRefused: 0 });
    const setup = jest.fn(async () => void fake.log.push('setup'));
    const opened = await contexts.open(undefined, router(), { userAgent: undefined }, setup);
    expect(fake.poolOptions()).toEqual({ maxBrowsers: 1, proxyServer: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(fake.contextOptions[0]).toMatchObject({ userAgent: 'UA', viewport: { width: 800, height: 600 }, serviceWorkers: 'block' });
    expect(fake.contextOptions[0]).not.toHaveProperty('proxy');
    expect(fake.log).toEqual(['init script', 'route', 'setup']);
    expect(contexts.stats()).toMatchObject({ browsers: 1, openContexts: 1 });
    await opened.close();
    await opened.close();
    expect(fake.log.slice(3)).toEqual(['context closed', 'lease released']);
    expect(contexts.stats().openContexts).toBe(0);
  });

  it('sends a proxy pool’s contexts through one guard proxy of that pool, and a context’s own proxy through itself', async () => {
    const fake = fakePool();
    contexts = new BrowserContexts(settings, fake.build);
    const pool = new ProxyPool({
      name: 'p',
      proxies: [{ protocol: 'http:', host: '10.0.0.1', port: 3128, label: 'http://10.0.0.1:3128' }],
      stickyMs: 0,
    });
    const a = await contexts.open({ pool }, router(), { userAgent: 'Other' });
    const b = await contexts.open({ pool }, router(), {});
    const server = (fake.contextOptions[0].proxy as { server: string }).server;
    expect((fake.contextOptions[1].proxy as { server: string }).server).toBe(server);
    expect(server).not.toBe(fake.poolOptions()!.proxyServer);
    expect(fake.contextOptions[0].userAgent).toBe('Other');
    const own = ownProxy(fake.log);
    const c = await contexts.open({ own, counted: true }, router(), {});
    expect((fake.contextOptions[2].proxy as { server: string }).server).not.toBe(server);
    for (const opened of [a, b, c]) await opened.close();
    expect(fake.log.filter((line) => line === 'own proxy closed')).toHaveLength(1);
  });

  it('releases the lease and closes the own proxy when the context cannot be opened, and closes the context when it cannot be readied', async () => {
    const broken = fakePool({ failContext: true });
    contexts = new BrowserContexts(settings, broken.build);
    await expect(contexts.open({ own: ownProxy(broken.log), counted: false }, router(), {})).rejects.toMatchObject({
      category: 'fetch_error',
      retryable: true,
    });
    expect(broken.log).toEqual(['lease released', 'own proxy closed']);
    await contexts.close();

    const fake = fakePool();
    contexts = new BrowserContexts(settings, fake.build);
    const failing = async () => {
      throw new Error('no cookies today');
    };
    await expect(contexts.open(undefined, router(), {}, failing)).rejects.toThrow(
      'Could not prepare the browser context: no cookies today',
    );
    expect(fake.log).toEqual(['init script', 'route', 'context closed', 'lease released']);
    expect(contexts.stats().openContexts).toBe(0);
  });
});
