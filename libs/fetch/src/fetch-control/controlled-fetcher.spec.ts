import type { FetchOptions, FetchResult } from '../fetch-types';
import { ProxyPools, UnconfiguredProxyPool } from '../proxy-pool/proxy-pool';
import { useProxyPools } from '../proxy-pool/configured-pools';
import type { PlainFetcher } from '../proxy-pool/through-pool';
import { FetchControlUnusable } from './control-unusable';
import { controlledFetcher, sideReadControl, sideReadFetcher } from './controlled-fetcher';
import { keptStoredFetchControl, openRequestControl } from './fetch-control';

/** A fetcher that records the options of every fetch. */
function recording() {
  const seen: Array<{ url: string; options: FetchOptions | undefined }> = [];
  const answer = (url: string, options?: FetchOptions) => {
    seen.push({ url, options });
    return Promise.resolve({ url } as FetchResult);
  };
  const fetcher = { fetch: answer, fetchRaw: answer } as unknown as PlainFetcher;
  return { fetcher, seen };
}

describe('controlled fetcher: the fetches a job makes without the page loader take its opened control', () => {
  let pools: ProxyPools;
  beforeAll(() => {
    pools = useProxyPools(JSON.stringify({ resi: ['http://u:p@127.0.0.1:3128'] }));
  });
  afterAll(() => {
    useProxyPools(undefined);
  });

  it('carries the control under each fetch own options, through its pool; the fetch own options win', async () => {
    const { fetcher, seen } = recording();
    const scoped = { headers: { 'X-Key': 'k' }, cookies: {}, host: 'shop.test' };
    const controlled = controlledFetcher(fetcher, { scoped, userAgent: 'UA/1', proxyPool: 'resi' });
    await controlled.fetchRaw('http://shop.test/robots.txt', { timeoutMs: 5, userAgent: 'Own/2' });
    await controlled.fetch('http://shop.test/');
    expect(seen[0].options).toEqual({ scoped, userAgent: 'Own/2', timeoutMs: 5, proxy: pools.get('resi') });
    expect(seen[1].options).toEqual({ scoped, userAgent: 'UA/1', proxy: pools.get('resi') });
  });

  it('is the fetcher itself without a control, and never carries the session (that comes with its login)', async () => {
    const { fetcher, seen } = recording();
    expect(controlledFetcher(fetcher, {})).toBe(fetcher);
    expect(controlledFetcher(fetcher, { authProfile: { id: 'p1', owner: 'u1' } })).toBe(fetcher);
    await controlledFetcher(fetcher, { authProfile: { id: 'p1', owner: 'u1' }, userAgent: 'UA/1' }).fetch('http://a.test/');
    expect(seen[0].options).toEqual({ userAgent: 'UA/1' });
  });

  it("gives a job's reads besides its pages its pool only: never its headers, cookies, User-Agent, wait_for or session", async () => {
    const control = {
      scoped: { headers: { A: 'secret-a' }, cookies: { s: '1' } },
      userAgent: 'UA/1',
      waitFor: { ms: 5 },
      proxyPool: 'resi',
      authProfile: { id: 'p1', owner: 'u1' },
    };
    expect(sideReadControl(control)).toEqual({ proxyPool: 'resi' });
    expect(sideReadControl({ userAgent: 'UA/1' })).toEqual({});
    const { fetcher, seen } = recording();
    await sideReadFetcher(fetcher, control).fetchRaw('http://a.test/robots.txt', { headers: { 'User-Agent': 'GleanerBot' } });
    expect(seen[0].options).toEqual({ headers: { 'User-Agent': 'GleanerBot' }, proxy: pools.get('resi') });
    expect(sideReadFetcher(fetcher, { userAgent: 'UA/1' })).toBe(fetcher);
  });

  it('fails a read whose pool is gone as an unusable control (robots.txt passes it on), never goes direct', async () => {
    const { fetcher, seen } = recording();
    const error = await sideReadFetcher(fetcher, { proxyPool: 'removed' })
      .fetchRaw('http://a.test/robots.txt')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnconfiguredProxyPool);
    expect(error).toBeInstanceOf(FetchControlUnusable);
    expect(seen).toEqual([]);
  });
});

describe('a request opened where it is answered (POST /map) and what stored options keep', () => {
  it('scopes the headers and cookies as given to the host, opens the rest as a job does', () => {
    expect(
      openRequestControl(
        { headers: { 'X-Key': 'k' }, user_agent: 'UA/1', proxy: 'resi', auth_profile: 'p1' },
        { host: 'shop.test', owner: 'u1' },
      ),
    ).toEqual({
      scoped: { headers: { 'X-Key': 'k' }, cookies: {}, host: 'shop.test' },
      userAgent: 'UA/1',
      proxyPool: 'resi',
      authProfile: { id: 'p1', owner: 'u1' },
    });
    expect(openRequestControl({ cookies: { s: '1' }, proxy: 'none' })).toEqual({ scoped: { headers: {}, cookies: { s: '1' } } });
    expect(openRequestControl({})).toEqual({});
  });

  it('keeps a named proxy pool of a stored layer whatever this process knows', () => {
    expect(keptStoredFetchControl({ proxy: 'removed', user_agent: 'UA/1' })).toEqual({ proxy: 'removed' });
    expect(keptStoredFetchControl({ proxy: '' })).toEqual({});
    expect(keptStoredFetchControl({})).toEqual({});
  });
});
