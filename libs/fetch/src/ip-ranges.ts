import { isIP } from 'node:net';

/**
 * Classifies IP addresses as public or forbidden for outbound fetches (SSRF guard). Pure and
 * synchronous so it can be unit-tested exhaustively; DNS lives in address-guard.ts.
 */
export interface IpVerdict {
  allowed: boolean;
  /** Why it is forbidden (the matched range's name), or 'public'. */
  reason: string;
  /** The IPv4 address that decided the verdict when an IPv6 address embeds one. */
  embeddedV4?: string;
}

interface Cidr {
  family: 4 | 6;
  base: bigint;
  bits: number;
  name: string;
}

export function parseIPv4(text: string): bigint | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

export function parseIPv6(input: string): bigint | undefined {
  const text = stripBrackets(input).split('%')[0];
  if (isIP(text) !== 6) return undefined;
  let groups: string[];
  let head = text;
  let tailV4: bigint | undefined;
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = head.lastIndexOf(':');
  if (head.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIPv4(head.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = head.slice(0, lastColon + 1) + '0:0';
  }
  if (head.includes('::')) {
    const [left, right] = head.split('::');
    const l = left ? left.split(':') : [];
    const r = right ? right.split(':') : [];
    groups = [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
  } else {
    groups = head.split(':');
  }
  if (groups.length !== 8) return undefined;
  let value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

export function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => Number((value >> s) & 0xffn)).join('.');
}

function stripBrackets(text: string): string {
  return text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
}

export function parseCidr(text: string, name = text): Cidr {
  const [addr, bitsText] = text.split('/');
  const v4 = parseIPv4(addr);
  if (v4 !== undefined) return { family: 4, base: v4, bits: bitsText === undefined ? 32 : Number(bitsText), name };
  const v6 = parseIPv6(addr);
  if (v6 !== undefined) return { family: 6, base: v6, bits: bitsText === undefined ? 128 : Number(bitsText), name };
  throw new Error(`invalid CIDR: ${text}`);
}

export function cidrContains(cidr: Cidr, family: 4 | 6, value: bigint): boolean {
  if (cidr.family !== family) return false;
  const width = family === 4 ? 32 : 128;
  const shift = BigInt(width - cidr.bits);
  return value >> shift === cidr.base >> shift;
}

const V4_FORBIDDEN: Cidr[] = [
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (includes cloud metadata 169.254.169.254)'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved (includes broadcast)'],
].map(([c, n]) => parseCidr(c, n));

const V6_FORBIDDEN: Cidr[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'SRv6 SIDs'],
  ['fc00::/7', 'unique local (ULA; includes fd00:ec2::254 metadata)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
].map(([c, n]) => parseCidr(c, n));

/**
 * Cloud metadata services and the link-local ranges they live in: refused whatever
 * GLEANER_ALLOW_PRIVATE_NETWORKS, GLEANER_ALLOW_NETWORKS or an allowed host says (docs/security.md).
 */
const V4_METADATA: Cidr[] = [
  ['169.254.0.0/16', 'link-local, cloud metadata (169.254.169.254: AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle)'],
  ['100.100.100.200/32', 'cloud metadata (Alibaba Cloud)'],
  ['192.0.0.192/32', 'cloud metadata (Oracle Cloud classic)'],
  ['168.63.129.16/32', 'cloud platform endpoint (Azure WireServer)'],
].map(([c, n]) => parseCidr(c, n));

const V6_METADATA: Cidr[] = [
  ['fd00:ec2::254/128', 'cloud metadata (AWS IPv6)'],
  ['fe80::/10', 'link-local'],
].map(([c, n]) => parseCidr(c, n));

/** Host names of metadata services, refused before any lookup whatever the configuration says. */
export const METADATA_HOST_NAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'metadata.packet.net',
  'metadata.platformequinix.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * The metadata range an address is in (also through an IPv4-mapped, NAT64, 6to4 or IPv4-compatible
 * form), or null. No setting opens these.
 */
export function metadataRange(ip: string): string | null {
  const v4 = parseIPv4(ip);
  if (v4 !== undefined) return V4_METADATA.find((c) => cidrContains(c, 4, v4))?.name ?? null;
  const v6 = parseIPv6(ip);
  if (v6 === undefined) return null;
  const direct = V6_METADATA.find((c) => cidrContains(c, 6, v6));
  if (direct) return direct.name;
  const form = embeddedForm(v6);
  if (!form) return null;
  const hit = V4_METADATA.find((c) => cidrContains(c, 4, form.v4));
  return hit ? `${form.name} ${formatIPv4(form.v4)}: ${hit.name}` : null;
}

const V4_MAPPED = parseCidr('::ffff:0:0/96');
const V4_COMPAT = parseCidr('::/96');
const NAT64 = parseCidr('64:ff9b::/96');
const SIX_TO_FOUR = parseCidr('2002::/16');

/**
 * Classifies one IP literal (v4 or v6, brackets and zone ids tolerated). Non-IPs are forbidden.
 *
 * `extraAllowed` (GLEANER_ALLOW_NETWORKS) opens a refused address only when the entry names the refused
 * range or a part of it: it holds the address and is no wider than the range that refuses it. A wider
 * entry (`0.0.0.0/0`, `::/0`, `::ffff:0:0/96`, `64:ff9b::/96`, `2002::/16`) opens nothing the guard
 * refuses. An IPv6 address that carries an IPv4 one is opened by an IPv4 entry naming that IPv4 address,
 * or by an IPv6 entry naming that form of it (`::ffff:10.20.0.0/112`), never by one covering the whole
 * form (docs/security.md "Opening private networks").
 */
export function classifyIp(ip: string, extraAllowed: readonly Cidr[] = []): IpVerdict {
  const metadata = metadataRange(ip);
  if (metadata) return { allowed: false, reason: metadata };
  const v4 = parseIPv4(ip);
  if (v4 !== undefined) return classifyV4(v4, extraAllowed);
  const v6 = parseIPv6(ip);
  if (v6 === undefined) return { allowed: false, reason: 'not an IP address' };

  // IPv6 forms that carry an IPv4 address are judged by that address.
  const carried = embeddedForm(v6);
  if (carried) return embedded(v6, carried, extraAllowed);

  const hit = V6_FORBIDDEN.find((c) => cidrContains(c, 6, v6));
  if (!hit) return { allowed: true, reason: 'public' };
  return opens(extraAllowed, 6, v6, hit.bits) ? { allowed: true, reason: 'allowlisted' } : { allowed: false, reason: hit.name };
}

function classifyV4(v4: bigint, extraAllowed: readonly Cidr[]): IpVerdict {
  const hit = V4_FORBIDDEN.find((c) => cidrContains(c, 4, v4));
  if (!hit) return { allowed: true, reason: 'public' };
  return opens(extraAllowed, 4, v4, hit.bits) ? { allowed: true, reason: 'allowlisted' } : { allowed: false, reason: hit.name };
}

/** An allowed range opens a refused address only when it names that address's refused range (`bits` long) or a part of it. */
function opens(extraAllowed: readonly Cidr[], family: 4 | 6, value: bigint, bits: number): boolean {
  return extraAllowed.some((c) => c.bits >= bits && cidrContains(c, family, value));
}

interface EmbeddedForm {
  name: string;
  v4: bigint;
  /** Where the IPv4 address starts in the IPv6 one (bits from the left). */
  offset: number;
}

/** The IPv4 address an IPv6 address carries (IPv4-mapped, NAT64, 6to4, IPv4-compatible), if it carries one. */
function embeddedForm(v6: bigint): EmbeddedForm | undefined {
  const low32 = v6 & 0xffffffffn;
  if (cidrContains(V4_MAPPED, 6, v6)) return { name: 'IPv4-mapped', v4: low32, offset: 96 };
  if (cidrContains(NAT64, 6, v6)) return { name: 'NAT64', v4: low32, offset: 96 };
  if (cidrContains(SIX_TO_FOUR, 6, v6)) return { name: '6to4', v4: (v6 >> 80n) & 0xffffffffn, offset: 16 };
  // ::/128 and ::1 are matched as themselves; any other ::a.b.c.d is the deprecated IPv4-compatible form.
  if (cidrContains(V4_COMPAT, 6, v6) && v6 > 1n) return { name: 'IPv4-compatible', v4: low32, offset: 96 };
  return undefined;
}

function embedded(v6: bigint, form: EmbeddedForm, extraAllowed: readonly Cidr[]): IpVerdict {
  const embeddedV4 = formatIPv4(form.v4);
  const hit = V4_FORBIDDEN.find((c) => cidrContains(c, 4, form.v4));
  if (!hit) return { allowed: true, reason: `${form.name} of a public IPv4`, embeddedV4 };
  // Opened by an IPv4 entry naming the IPv4 range, or an IPv6 entry naming this form of it.
  if (opens(extraAllowed, 4, form.v4, hit.bits) || opens(extraAllowed, 6, v6, form.offset + hit.bits))
    return { allowed: true, reason: 'allowlisted', embeddedV4 };
  return { allowed: false, reason: `${form.name} ${embeddedV4}: ${hit.name}`, embeddedV4 };
}

export type { Cidr };
