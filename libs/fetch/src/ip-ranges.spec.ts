import { classifyIp, parseCidr, parseIPv6 } from './ip-ranges';

describe('classifyIp', () => {
  const forbidden: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['10.0.0.1', /private/],
    ['10.255.255.255', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade/],
    ['100.100.100.200', /metadata \(Alibaba/],
    ['100.127.255.255', /carrier-grade/],
    ['169.254.169.254', /link-local/],
    ['169.254.0.1', /link-local/],
    ['192.0.0.8', /IETF/],
    ['192.0.2.10', /documentation/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.99', /documentation/],
    ['198.18.0.1', /benchmark/],
    ['198.19.255.255', /benchmark/],
    ['192.88.99.1', /6to4 relay/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['[::1]', /loopback/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fc00::1', /unique local/],
    ['fd12:3456:789a::1', /unique local/],
    ['fd00:ec2::254', /metadata \(AWS IPv6\)/],
    ['fd00:ec2::253', /unique local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['100::1', /discard/],
    ['2001::1', /Teredo/],
    ['::ffff:127.0.0.1', /IPv4-mapped 127.0.0.1: loopback/],
    ['::ffff:7f00:1', /IPv4-mapped 127.0.0.1/],
    ['::ffff:10.1.2.3', /IPv4-mapped 10.1.2.3: private/],
    ['::ffff:169.254.169.254', /IPv4-mapped 169.254.169.254/],
    ['::127.0.0.1', /IPv4-compatible 127.0.0.1/],
    ['::10.0.0.1', /IPv4-compatible/],
    ['64:ff9b::10.0.0.1', /NAT64 10.0.0.1: private/],
    ['64:ff9b::7f00:1', /NAT64 127.0.0.1/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2002:7f00:0001::1', /6to4 127.0.0.1/],
    ['2002:c0a8:0101::', /6to4 192.168.1.1/],
    ['2002:a9fe:a9fe::1', /6to4 169.254.169.254/],
  ];
  it.each(forbidden)('refuses %s', (ip, reason) => {
    const verdict = classifyIp(ip);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toMatch(reason);
  });

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '198.17.255.255',
    '198.20.0.1',
    '192.169.0.1',
    '11.0.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:0808:0808::1',
  ];
  it.each(allowed)('allows %s', (ip) => {
    expect(classifyIp(ip).allowed).toBe(true);
  });

  it('rejects non-addresses', () => {
    expect(classifyIp('localhost').allowed).toBe(false);
    expect(classifyIp('999.1.1.1').allowed).toBe(false);
    expect(classifyIp('').allowed).toBe(false);
  });

  it('honours extra allowed ranges (operator allowlist)', () => {
    const extra = [parseCidr('10.20.0.0/16'), parseCidr('fd00:abcd::/32')];
    expect(classifyIp('10.20.3.4', extra).allowed).toBe(true);
    expect(classifyIp('10.21.3.4', extra).allowed).toBe(false);
    expect(classifyIp('::ffff:10.20.3.4', extra).allowed).toBe(true);
    expect(classifyIp('fd00:abcd::1', extra).allowed).toBe(true);
  });

  describe('an allowed range never opens a refused range it does not name (IPv4 carried in IPv6, both directions)', () => {
    const refusedV4 = ['127.0.0.1', '10.20.3.4', '192.168.1.1', '172.16.0.1', '100.64.0.1', '0.0.0.1'];
    // Every IPv6 form that carries an IPv4 address, written as a function of that address.
    const forms: Array<[string, (v4: string) => string]> = [
      ['IPv4-mapped', (v4) => `::ffff:${v4}`],
      ['NAT64', (v4) => `64:ff9b::${v4}`],
      ['6to4', (v4) => `2002:${hex(v4, 0)}:${hex(v4, 1)}::1`],
      ['IPv4-compatible', (v4) => `::${v4}`],
    ];
    const hex = (v4: string, half: 0 | 1) => {
      const [a, b, c, d] = v4.split('.').map(Number);
      return (half === 0 ? (a << 8) | b : (c << 8) | d).toString(16);
    };

    it.each(['::ffff:0:0/96', '64:ff9b::/96', '2002::/16', '::/96', '::/0', '::/1', '0.0.0.0/0', '0.0.0.0/1', '::ffff:0:0/97'])(
      'an entry wider than a refused range (%s) opens none of it, in any form',
      (entry) => {
        const extra = [parseCidr(entry)];
        for (const v4 of refusedV4) {
          expect(classifyIp(v4, extra)).toMatchObject({ allowed: false });
          for (const [, form] of forms) expect(classifyIp(form(v4), extra)).toMatchObject({ allowed: false });
        }
        for (const v6 of ['::1', 'fd12::1', 'fc00::1', '2001:db8::1', 'ff02::1', '100::1', '2001::1'])
          expect(classifyIp(v6, extra)).toMatchObject({ allowed: false });
        // Public addresses are open with or without it.
        expect(classifyIp('::ffff:8.8.8.8', extra).allowed).toBe(true);
      },
    );

    it.each([
      ['IPv4-mapped', '::ffff:10.20.0.0/112'],
      ['NAT64', '64:ff9b::a14:0/112'],
      ['6to4', '2002:a14::/32'],
      ['IPv4-compatible', '::10.20.0.0/112'],
    ])('an IPv6 entry naming the %s form of a range (%s) opens that form of it only', (name, entry) => {
      const extra = [parseCidr(entry)];
      for (const [formName, form] of forms) {
        expect(classifyIp(form('10.20.3.4'), extra).allowed).toBe(formName === name);
        expect(classifyIp(form('10.21.3.4'), extra).allowed).toBe(false);
        expect(classifyIp(form('127.0.0.1'), extra).allowed).toBe(false);
      }
      expect(classifyIp('10.20.3.4', extra).allowed).toBe(false); // the plain IPv4 address is not named
    });

    it('an IPv4 entry opens the range it names in every form that carries it, and nothing beside it', () => {
      const extra = [parseCidr('10.20.0.0/16')];
      for (const [, form] of forms) {
        expect(classifyIp(form('10.20.3.4'), extra).allowed).toBe(true);
        expect(classifyIp(form('10.21.3.4'), extra)).toMatchObject({ allowed: false, reason: expect.stringMatching(/private/) });
        expect(classifyIp(form('127.0.0.1'), extra).allowed).toBe(false);
      }
      const loopback = [parseCidr('127.0.0.0/8')];
      expect(classifyIp('::ffff:127.0.0.1', loopback).allowed).toBe(true);
      expect(classifyIp('::1', loopback).allowed).toBe(false); // IPv6 loopback is its own range
    });

    it('an IPv6 entry opens a refused IPv6 range only when it names it or a part of it', () => {
      expect(classifyIp('fd12:3456::1', [parseCidr('fd12:3456::/48')]).allowed).toBe(true);
      expect(classifyIp('fd12:3456::1', [parseCidr('fc00::/7')]).allowed).toBe(true);
      expect(classifyIp('fd12:3456::1', [parseCidr('fc00::/6')]).allowed).toBe(false);
      expect(classifyIp('::1', [parseCidr('::1/128')]).allowed).toBe(true);
      expect(classifyIp('::1', [parseCidr('::/127')]).allowed).toBe(false);
    });
  });

  it('parses IPv6 forms to the same value', () => {
    expect(parseIPv6('::ffff:127.0.0.1')).toBe(parseIPv6('::ffff:7f00:1'));
    expect(parseIPv6('0:0:0:0:0:0:0:1')).toBe(1n);
    expect(parseIPv6('[::1]')).toBe(1n);
    expect(parseIPv6('not-ip')).toBeUndefined();
  });
});
