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

  it('parses IPv6 forms to the same value', () => {
    expect(parseIPv6('::ffff:127.0.0.1')).toBe(parseIPv6('::ffff:7f00:1'));
    expect(parseIPv6('0:0:0:0:0:0:0:1')).toBe(1n);
    expect(parseIPv6('[::1]')).toBe(1n);
    expect(parseIPv6('not-ip')).toBeUndefined();
  });
});
