/**
 * The one classification of addresses a webhook may not reach: every entry of the IANA IPv4 and
 * IPv6 Special-Purpose Address Registries (checked against the registries of 2025), plus the
 * ranges the registries leave to others (multicast, the deprecated IPv6 forms, everything outside
 * IPv6 global unicast). An entry marked "globally reachable" by IANA (anycast for PCP, TURN, AS112)
 * is refused too: none of them is a webhook receiver.
 *
 * IPv6 forms that embed an IPv4 address:
 * - IPv4-mapped ::ffff:0:0/96 and the well-known NAT64 prefix 64:ff9b::/96 are judged by the IPv4
 *   address they embed. A socket connecting to ::ffff:a.b.c.d reaches a.b.c.d; a DNS64 resolver
 *   on an IPv6-only network answers 64:ff9b::a.b.c.d for a public IPv4-only receiver, and RFC 6052
 *   section 3.1 forbids translating the well-known prefix to non-global IPv4 addresses. Refusing
 *   them would refuse public receivers; their embedded address decides, with the IPv4 table.
 * - IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, local-use NAT64 64:ff9b:1::/48, 6to4
 *   2002::/16 and Teredo 2001::/32 are refused whole: deprecated or operator-defined, no public
 *   receiver has one, and where they lead (a stack that routes ::a.b.c.d to IPv4, an operator's
 *   translator into its own network, a tunnel relay) is not what their embedded address says.
 */
export interface SpecialRange {
  readonly family: 4 | 6;
  /** The range as the registry writes it, e.g. `127.0.0.0/8`. */
  readonly cidr: string;
  readonly name: string;
  readonly rfc: string;
}

const IPV4_RANGES: ReadonlyArray<readonly [string, string, string]> = [
  ['0.0.0.0/8', '"this network"', 'RFC 791'],
  ['0.0.0.0/32', '"this host on this network"', 'RFC 1122'],
  ['10.0.0.0/8', 'private-use', 'RFC 1918'],
  ['100.64.0.0/10', 'shared address space, carrier-grade NAT', 'RFC 6598'],
  ['127.0.0.0/8', 'loopback', 'RFC 1122'],
  ['169.254.0.0/16', 'link-local, cloud metadata', 'RFC 3927'],
  ['172.16.0.0/12', 'private-use', 'RFC 1918'],
  ['192.0.0.0/24', 'IETF protocol assignments', 'RFC 6890'],
  ['192.0.0.0/29', 'IPv4 service continuity prefix', 'RFC 7335'],
  ['192.0.0.8/32', 'IPv4 dummy address', 'RFC 7600'],
  ['192.0.0.9/32', 'Port Control Protocol anycast', 'RFC 7723'],
  ['192.0.0.10/32', 'TURN anycast', 'RFC 8155'],
  ['192.0.0.170/32', 'NAT64/DNS64 discovery', 'RFC 8880'],
  ['192.0.0.171/32', 'NAT64/DNS64 discovery', 'RFC 8880'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1', 'RFC 5737'],
  ['192.31.196.0/24', 'AS112-v4', 'RFC 7535'],
  ['192.52.193.0/24', 'AMT', 'RFC 7450'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast', 'RFC 7526'],
  ['192.168.0.0/16', 'private-use', 'RFC 1918'],
  ['192.175.48.0/24', 'direct delegation AS112 service', 'RFC 7534'],
  ['198.18.0.0/15', 'benchmarking', 'RFC 2544'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2', 'RFC 5737'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3', 'RFC 5737'],
  ['240.0.0.0/4', 'reserved', 'RFC 1112'],
  ['255.255.255.255/32', 'limited broadcast', 'RFC 919'],
  // Not in the special-purpose registry (it has a registry of its own), never a unicast receiver.
  ['224.0.0.0/4', 'multicast', 'RFC 5771'],
];

const IPV6_RANGES: ReadonlyArray<readonly [string, string, string]> = [
  ['::1/128', 'loopback', 'RFC 4291'],
  ['::/128', 'unspecified', 'RFC 4291'],
  ['64:ff9b:1::/48', 'local-use NAT64 translation', 'RFC 8215'],
  ['100::/64', 'discard-only', 'RFC 6666'],
  ['100:0:0:1::/64', 'dummy IPv6 prefix', 'RFC 9780'],
  ['2001::/23', 'IETF protocol assignments', 'RFC 2928'],
  ['2001::/32', 'Teredo', 'RFC 4380'],
  ['2001:1::1/128', 'Port Control Protocol anycast', 'RFC 7723'],
  ['2001:1::2/128', 'TURN anycast', 'RFC 8155'],
  ['2001:1::3/128', 'DNS-SD service registration protocol anycast', 'RFC 9665'],
  ['2001:2::/48', 'benchmarking', 'RFC 5180'],
  ['2001:3::/32', 'AMT', 'RFC 7450'],
  ['2001:4:112::/48', 'AS112-v6', 'RFC 7535'],
  ['2001:10::/28', 'deprecated ORCHID', 'RFC 4843'],
  ['2001:20::/28', 'ORCHIDv2', 'RFC 7343'],
  ['2001:30::/28', 'drone remote ID entity tags', 'RFC 9374'],
  ['2001:db8::/32', 'documentation', 'RFC 3849'],
  ['2002::/16', '6to4', 'RFC 3056'],
  ['2620:4f:8000::/48', 'direct delegation AS112 service', 'RFC 7534'],
  ['3fff::/20', 'documentation', 'RFC 9637'],
  ['5f00::/16', 'segment routing SIDs, SRv6', 'RFC 9602'],
  ['fc00::/7', 'unique-local', 'RFC 4193'],
  ['fe80::/10', 'link-local', 'RFC 4291'],
  // Not (or no longer) in the registry, refused whole (see above).
  ['::/96', 'deprecated IPv4-compatible', 'RFC 4291 section 2.5.5.1'],
  ['::ffff:0:0:0/96', 'IPv4-translated, SIIT', 'RFC 2765'],
  ['fec0::/10', 'deprecated site-local', 'RFC 3879'],
  ['ff00::/8', 'multicast', 'RFC 4291'],
];

/** Judged by the IPv4 address in their last 32 bits (see above); checked before the table. */
const EMBEDDING_IPV4: ReadonlyArray<readonly [string, string]> = [
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['64:ff9b::/96', 'NAT64 well-known prefix'],
];

/** Only 2000::/3 is allocated for global unicast (RFC 4291 section 2.4, the IANA IPv6 address space). */
const GLOBAL_UNICAST_V6 = { value: 0x2n << 124n, bits: 3 };

interface Prefix {
  readonly value: bigint;
  readonly bits: number;
  readonly range: SpecialRange;
}

function prefixes(family: 4 | 6, rows: ReadonlyArray<readonly [string, string, string]>): Prefix[] {
  return rows
    .map(([cidr, name, rfc]) => {
      const [address, bits] = cidr.split('/') as [string, string];
      const parsed = parseIpAddress(address);
      if (parsed?.family !== family) throw new Error(`bad range ${cidr}`);
      return { value: parsed.value, bits: Number(bits), range: { family, cidr, name, rfc } };
    })
    .sort((a, b) => b.bits - a.bits); // the most specific entry names the address
}

const V4 = prefixes(4, IPV4_RANGES);
const V6 = prefixes(6, IPV6_RANGES);
const EMBEDDING = prefixes(
  6,
  EMBEDDING_IPV4.map(([cidr, name]) => [cidr, name, ''] as const),
);

/** Every range refused whole, for documentation and tests. */
export const SPECIAL_RANGES: readonly SpecialRange[] = [...V4, ...V6].map((p) => p.range);

function within(value: bigint, width: number, prefix: { value: bigint; bits: number }): boolean {
  const shift = BigInt(width - prefix.bits);
  return value >> shift === prefix.value >> shift;
}

export type Classification =
  | { readonly kind: 'public' }
  /** `reason` names the range and its RFC: `loopback (127.0.0.0/8, RFC 1122)`. */
  | { readonly kind: 'special'; readonly reason: string }
  | { readonly kind: 'not-an-address' };

/** Whether an address (any spelling: see parseIpAddress) is public, or which special range it is in. */
export function classifyAddress(text: string): Classification {
  const parsed = parseIpAddress(text);
  if (!parsed) return { kind: 'not-an-address' };
  if (parsed.family === 4) return classified(V4.find((p) => within(parsed.value, 32, p)));
  const embedding = EMBEDDING.find((p) => within(parsed.value, 128, p));
  if (embedding) {
    const v4 = parsed.value & 0xffffffffn;
    const inside = classified(V4.find((p) => within(v4, 32, p)));
    return inside.kind === 'special'
      ? { kind: 'special', reason: `${embedding.range.name}, embedding ${formatIpv4(v4)}: ${inside.reason}` }
      : inside;
  }
  const hit = V6.find((p) => within(parsed.value, 128, p));
  if (hit) return classified(hit);
  if (!within(parsed.value, 128, GLOBAL_UNICAST_V6))
    return { kind: 'special', reason: 'outside IPv6 global unicast (2000::/3, RFC 4291 section 2.4)' };
  return { kind: 'public' };
}

function classified(hit: Prefix | undefined): Classification {
  return hit
    ? { kind: 'special', reason: `${hit.range.name} (${hit.range.cidr}, ${hit.range.rfc})` }
    : { kind: 'public' };
}

export interface ParsedAddress {
  readonly family: 4 | 6;
  /** The address as an unsigned 32- or 128-bit number. */
  readonly value: bigint;
}

/**
 * An IP address in any spelling a resolver, a URL parser or inet_aton accepts: IPv4 dotted,
 * short (127.1), decimal (2130706433), hex (0x7f000001, 0x7f.1), octal (0177.0.0.1), a trailing
 * dot; IPv6 compressed or expanded, upper case, mixed notation (::ffff:127.0.0.1), in brackets,
 * with a zone id (fe80::1%eth0). undefined for anything else (a host name).
 */
export function parseIpAddress(text: string): ParsedAddress | undefined {
  const v6 = /^\[?([0-9a-f:.]+)(?:%[^\]]*)?\]?$/i.exec(text);
  if (v6 && text.includes(':') && text.startsWith('[') === text.endsWith(']')) {
    const value = parseIpv6(v6[1]!.toLowerCase());
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { family: 4, value };
}

/** The WHATWG URL IPv4 parser (inet_aton's forms): 1 to 4 parts, the last fills the rest. */
function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: bigint[] = [];
  for (const part of parts) {
    let n: bigint;
    if (/^0x[0-9a-f]*$/i.test(part)) n = part.length === 2 ? 0n : BigInt(part);
    else if (/^0[0-7]+$/.test(part)) n = BigInt(`0o${part.slice(1)}`);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) n = BigInt(part);
    else return undefined;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255n) || last >= 256n ** BigInt(4 - numbers.length)) return undefined;
  return numbers.reduce((sum, n, i) => sum + (n << BigInt(8 * (3 - i))), last);
}

function parseIpv6(text: string): bigint | undefined {
  let groups = text;
  let tail: bigint[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[2]!.split('.');
    if (octets.some((o) => !/^(0|[1-9]\d{0,2})$/.test(o) || Number(o) > 255)) return undefined;
    const v4 = octets.reduce((sum, o) => (sum << 8n) + BigInt(o), 0n);
    tail = [v4 >> 16n, v4 & 0xffffn];
    groups = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = groups.split('::');
  if (halves.length > 2) return undefined;
  const side = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const head = side(halves[0]);
  const rest = side(halves[1]);
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return undefined;
  const all = [
    ...head.map((g) => BigInt(`0x${g}`)),
    ...Array<bigint>(8 - given).fill(0n),
    ...rest.map((g) => BigInt(`0x${g}`)),
    ...tail,
  ];
  return all.reduce((sum, g) => (sum << 16n) + g, 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
}
