import { AppError } from '@app/core';
import { AddressGuard, createGuardedAgent, pinnedLookup, type Resolver } from './address-guard';

const table: Record<string, string[]> = {
  'public.example': ['93.184.216.34'],
  'private.example': ['10.0.0.7'],
  'mixed.example': ['93.184.216.34', '192.168.0.1'],
  'v6private.example': ['fd00::1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'alias.test': ['127.0.0.1'],
  'imds.intranet.test': ['169.254.169.254'],
  'imds6.intranet.test': ['fd00:ec2::254'],
};
const resolver: Resolver = async (host) => {
  const addrs = table[host];
  if (!addrs) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function category(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return error instanceof AppError ? error.category : `raw: ${String(error)}`;
  }
}

describe('AddressGuard', () => {
  const guard = new AddressGuard({ resolver, allowHosts: ['alias.test'] });

  it('passes public names and returns their addresses', async () => {
    await expect(guard.resolvePublic('public.example')).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it.each([
    ['private.example'],
    ['mixed.example'],
    ['v6private.example'],
    ['mapped.example'],
    ['localhost'],
    ['LOCALHOST.'],
    ['foo.localhost'],
    ['metadata.google.internal'],
    ['127.0.0.1'],
    ['[::1]'],
    ['169.254.169.254'],
    ['[fd00:ec2::254]'],
    ['0.0.0.0'],
  ])('refuses %s', async (host) => {
    expect(await category(guard.resolvePublic(host))).toBe('ssrf_blocked');
  });

  it.each([
    ['http://2130706433/'],
    ['http://0177.0.0.1/'],
    ['http://0x7f.1/'],
    ['http://127.1/'],
    ['http://[::ffff:127.0.0.1]/'],
    ['http://[::]/'],
    ['http://0/'],
    ['file:///etc/passwd'],
    ['gopher://public.example/'],
  ])('refuses the URL %s', async (url) => {
    expect(await category(guard.checkUrl(url))).toBe('ssrf_blocked');
  });

  it('lets allowlisted names through even though they resolve to loopback', async () => {
    await expect(guard.resolvePublic('alias.test')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('reports DNS failures as fetch_error', async () => {
    expect(await category(guard.resolvePublic('nowhere.example'))).toBe('fetch_error');
  });

  it('allowPrivateNetworks lifts the guard', async () => {
    const open = new AddressGuard({ resolver, allowPrivateNetworks: true });
    await expect(open.resolvePublic('private.example')).resolves.toHaveLength(1);
    await expect(open.resolvePublic('127.0.0.1')).resolves.toHaveLength(1);
  });

  describe('cloud metadata endpoints stay closed whatever the configuration allows', () => {
    // Every verdict comes from the guard before a socket exists: nothing listens there, nothing is sent.
    const everythingOpen = [
      ['allowPrivateNetworks', new AddressGuard({ resolver, allowPrivateNetworks: true })],
      [
        'allowCidrs covering them',
        new AddressGuard({ resolver, allowCidrs: ['169.254.0.0/16', 'fd00::/8', '100.64.0.0/10', '0.0.0.0/0'] }),
      ],
      [
        'allowHosts naming them',
        new AddressGuard({ resolver, allowHosts: ['imds.intranet.test', 'imds6.intranet.test', 'metadata.google.internal'] }),
      ],
    ] as const;
    const targets = [
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.1.1/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://192.0.0.192/',
      'http://168.63.129.16/',
      'http://[fe80::1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::1]/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.GOOGLE.INTERNAL./',
      'http://metadata/',
      'http://metadata.goog/',
      'http://instance-data.ec2.internal/',
      'http://imds.intranet.test/',
      'http://imds6.intranet.test/',
    ];
    for (const [name, open] of everythingOpen) {
      it.each(targets)(`${name}: refuses %s`, async (url) => {
        expect(await category(open.checkUrl(url))).toBe('ssrf_blocked');
      });
    }

    it('guard.lookup (webhooks, model endpoints) refuses a name resolving to a metadata address', async () => {
      const open = new AddressGuard({ resolver, allowPrivateNetworks: true });
      const error = await new Promise<unknown>((resolve) => open.lookup('imds.intranet.test', {}, (e) => resolve(e)));
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).category).toBe('ssrf_blocked');
    });

    it('private networks are still open with allowPrivateNetworks (only metadata is refused)', async () => {
      const open = new AddressGuard({ resolver, allowPrivateNetworks: true });
      await expect(open.resolvePublic('private.example')).resolves.toHaveLength(1);
      await expect(open.resolvePublic('169.255.0.1')).resolves.toHaveLength(1);
    });
  });

  describe('what a refusal says: the variable that opens it, never what a name resolves to', () => {
    const refusal = async (guardUnderTest: AddressGuard, host: string): Promise<AppError> => {
      try {
        await guardUnderTest.resolvePublic(host);
      } catch (error) {
        if (error instanceof AppError) return error;
        throw error;
      }
      throw new Error(`${host} was not refused`);
    };

    it.each([
      ['private.example', '10.0.0.7'],
      ['mixed.example', '192.168.0.1'],
      ['v6private.example', 'fd00::1'],
      ['mapped.example', '::ffff:127.0.0.1'],
    ])('%s: the message names the host and the variables, the address goes to the log only', async (host, address) => {
      const logged: unknown[] = [];
      const g = new AddressGuard({ resolver, onRefusal: (r) => logged.push(r) });
      const e = await refusal(g, host);
      expect(e.category).toBe('ssrf_blocked');
      expect(e.message).toContain(host);
      expect(e.message).toContain('GLEANER_ALLOW_NETWORKS');
      expect(e.message).toContain('GLEANER_ALLOW_PRIVATE_NETWORKS=true');
      for (const part of [address, '127.0.0.1', '7f00', address.replace(/^::ffff:/, '')]) expect(e.message).not.toContain(part);
      expect(logged).toEqual([{ host, address, reason: expect.any(String) }]);
    });

    it('a name resolving to a metadata address: never allowed, and its address is not told', async () => {
      const logged: unknown[] = [];
      const e = await refusal(
        new AddressGuard({ resolver, allowPrivateNetworks: true, onRefusal: (r) => logged.push(r) }),
        'imds.intranet.test',
      );
      expect(e.message).toBe('The host imds.intranet.test resolves to a cloud metadata address and is never allowed.');
      expect(logged).toEqual([{ host: 'imds.intranet.test', address: '169.254.169.254', reason: expect.stringMatching(/metadata/) }]);
    });

    it('a literal address is the caller’s own: the message keeps it and the exact entry that opens it', async () => {
      const logged: unknown[] = [];
      const e = await refusal(new AddressGuard({ resolver, onRefusal: (r) => logged.push(r) }), '10.1.2.3');
      expect(e.message).toBe(
        'The address 10.1.2.3 is not allowed: private (RFC 1918). An operator can open it with GLEANER_ALLOW_NETWORKS=10.1.2.3/32 (or its range), or GLEANER_ALLOW_PRIVATE_NETWORKS=true for development.',
      );
      expect(logged).toEqual([]);
    });

    it('localhost is loopback: refused with the entry that opens it, and that entry opens it', async () => {
      const e = await refusal(guard, 'localhost');
      expect(e.message).toContain('GLEANER_ALLOW_NETWORKS=127.0.0.1/32');
      const opened = new AddressGuard({ resolver, allowCidrs: ['127.0.0.1/32'] });
      await expect(opened.resolvePublic('localhost')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
      await expect(opened.resolvePublic('api.localhost')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
      expect(await category(new AddressGuard({ resolver, allowCidrs: ['10.0.0.0/8'] }).resolvePublic('localhost'))).toBe('ssrf_blocked');
    });
  });

  it('an allowed range covering a whole IPv6 form opens none of the refused IPv4 addresses it carries', async () => {
    const g = new AddressGuard({ resolver, allowCidrs: ['::ffff:0:0/96', '64:ff9b::/96', '2002::/16', '::/0', '0.0.0.0/0'] });
    expect(await category(g.resolvePublic('mapped.example'))).toBe('ssrf_blocked');
    for (const url of [
      'http://[::ffff:10.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:c0a8:101::1]/',
      'http://127.0.0.1/',
      'http://[fd00::1]/',
    ])
      expect(await category(g.checkUrl(url))).toBe('ssrf_blocked');
    await expect(g.checkUrl('http://[::ffff:93.184.216.34]/')).resolves.toHaveLength(1);
  });

  it('allowCidrs opens a specific range only', async () => {
    const g = new AddressGuard({ resolver, allowCidrs: ['10.0.0.0/24'] });
    await expect(g.resolvePublic('private.example')).resolves.toHaveLength(1);
    expect(await category(g.resolvePublic('mixed.example'))).toBe('ssrf_blocked');
  });

  it('guard.lookup answers node-style, with and without all:true', async () => {
    const one = await new Promise<[unknown, unknown, unknown]>((resolve) =>
      guard.lookup('public.example', {}, (e, a, f) => resolve([e, a, f])),
    );
    expect(one).toEqual([null, '93.184.216.34', 4]);
    const all = await new Promise<[unknown, unknown]>((resolve) =>
      guard.lookup('public.example', { all: true }, (e, a) => resolve([e, a])),
    );
    expect(all[1]).toEqual([{ address: '93.184.216.34', family: 4 }]);
    const refused = await new Promise<unknown>((resolve) => guard.lookup('private.example', {}, (e) => resolve(e)));
    expect((refused as AppError).category).toBe('ssrf_blocked');
  });

  it('pinnedLookup only ever answers with the vetted addresses', async () => {
    const lookup = pinnedLookup([{ address: '93.184.216.34', family: 4 }]);
    const res = await new Promise<unknown>((resolve) => lookup('whatever.example', { all: true }, (_e, a) => resolve(a)));
    expect(res).toEqual([{ address: '93.184.216.34', family: 4 }]);
    const v6 = await new Promise<unknown>((resolve) => lookup('x', { family: 6 }, (e) => resolve(e)));
    expect((v6 as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });

  it('createGuardedAgent installs the guarded lookup', () => {
    const agent = createGuardedAgent(guard, 'http:');
    expect((agent as unknown as { options: { lookup: unknown } }).options.lookup).toBe(guard.lookup);
    agent.destroy();
  });
});
