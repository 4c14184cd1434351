import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIpAddress } from '../../src/webhooks/special-addresses.js';
import { hostOf, refusedAddress } from '../../src/webhooks/target-address.js';

/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries, written here from the registries
 * (not from the code under test), plus the ranges a webhook must not reach that they leave out.
 * Every first, middle and last address of each, in every spelling a URL, a resolver or inet_aton
 * accepts, must be refused; the neighbours just outside, where public, must not be.
 */
const IPV4 = [
  '0.0.0.0/8',
  '0.0.0.0/32',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.0.0/29',
  '192.0.0.8/32',
  '192.0.0.9/32',
  '192.0.0.10/32',
  '192.0.0.170/32',
  '192.0.0.171/32',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '224.0.0.0/4', // multicast (RFC 5771), not in the special-purpose registry
];
const IPV6 = [
  '::1/128',
  '::/128',
  '::ffff:0:0/96', // IPv4-mapped: refused here because only special IPv4 addresses are put inside below
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001::/32',
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:2::/48',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:10::/28',
  '2001:20::/28',
  '2001:30::/28',
  '2001:db8::/32',
  '2002::/16',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  // Left out of the registry, refused all the same.
  '::/96', // IPv4-compatible, deprecated
  '::ffff:0:0:0/96', // IPv4-translated
  'fec0::/10', // site-local, deprecated
  'ff00::/8', // multicast
];

// --- address arithmetic of the test's own ---------------------------------------------------------

function v4Value(dotted: string): bigint {
  return dotted.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(octet), 0n);
}
function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
}
function v6Value(text: string): bigint {
  const [head, tail = ''] = text.split('::') as [string, string?];
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = text.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((sum, g) => (sum << 16n) + BigInt(`0x${g}`), 0n);
}
function v6Groups(value: bigint): string[] {
  return Array.from({ length: 8 }, (_, i) => ((value >> BigInt(16 * (7 - i))) & 0xffffn).toString(16));
}
function v6Compressed(value: bigint): string {
  const groups = v6Groups(value);
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length) best = { at: i, length: j - i };
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

interface Range {
  family: 4 | 6;
  cidr: string;
  first: bigint;
  last: bigint;
}
function rangeOf(cidr: string, family: 4 | 6): Range {
  const [address, bits] = cidr.split('/') as [string, string];
  const width = family === 4 ? 32n : 128n;
  const first = family === 4 ? v4Value(address) : v6Value(address);
  return { family, cidr, first, last: first + (1n << (width - BigInt(bits))) - 1n };
}
const V4_RANGES = IPV4.map((c) => rangeOf(c, 4));
const V6_RANGES = IPV6.map((c) => rangeOf(c, 6));
const GLOBAL_UNICAST = rangeOf('2000::/3', 6);
const inAny = (ranges: Range[], value: bigint) => ranges.some((r) => value >= r.first && value <= r.last);

/** Every spelling of an IPv4 address: what a URL parser normalizes, and what getaddrinfo/inet_aton take. */
function v4Spellings(value: bigint): string[] {
  const octets = [24n, 16n, 8n, 0n].map((s) => (value >> s) & 255n);
  const [a, b, c, d] = octets as [bigint, bigint, bigint, bigint];
  return [
    v4Text(value),
    `${v4Text(value)}.`, // trailing dot
    String(value), // 2130706433
    `0x${value.toString(16)}`,
    `0X${value.toString(16).toUpperCase()}`,
    `0${value.toString(8)}`, // one octal number
    octets.map((o) => `0${o.toString(8)}`).join('.'), // 0177.00.00.01
    octets.map((o) => `0x${o.toString(16)}`).join('.'),
    `${a}.${b}.${(c << 8n) + d}`, // 127.0.1
    `${a}.${(b << 16n) + (c << 8n) + d}`, // 127.1
    `0x${a.toString(16)}.${(b << 16n) + (c << 8n) + d}`,
  ];
}

/** The last 32 bits as a dotted quad (::ffff:127.0.0.1), the longest zero run of the rest compressed. */
function mixedNotation(value: bigint): string {
  const head = v6Groups(value).slice(0, 6);
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 6; i++) {
    let j = i;
    while (j < 6 && head[j] === '0') j++;
    if (j - i > best.length) best = { at: i, length: j - i };
  }
  const end = best.at + best.length;
  const text =
    best.at < 0
      ? `${head.join(':')}:`
      : `${head.slice(0, best.at).join(':')}::${head.slice(end).join(':')}${end < 6 ? ':' : ''}`;
  return `${text}${v4Text(value & 0xffffffffn)}`;
}

/** Every spelling of an IPv6 address: compressed, expanded, upper case, mixed notation, zone, brackets. */
function v6Spellings(value: bigint): string[] {
  const groups = v6Groups(value);
  const compressed = v6Compressed(value);
  return [
    compressed,
    groups.map((g) => g.padStart(4, '0')).join(':'),
    groups.join(':'),
    compressed.toUpperCase(),
    mixedNotation(value),
    `${compressed}%eth0`,
    `[${compressed}]`,
    `[${groups.map((g) => g.padStart(4, '0').toUpperCase()).join(':')}]`,
  ];
}

function samples(range: Range): bigint[] {
  return [range.first, range.first + (range.last - range.first) / 2n, range.last];
}

function expectRefused(spelling: string) {
  expect(classifyAddress(spelling).kind, spelling).toBe('special');
  expect(refusedAddress(spelling), spelling).toBeDefined();
}

/** A URL host as the webhook service sees it: parsed by WHATWG URL, brackets taken off. */
function throughUrl(host: string): string | undefined {
  try {
    return hostOf(new URL(`https://${host}:8443/hook`));
  } catch {
    return undefined; // an invalid URL is never stored
  }
}

describe('webhook targets: every special-purpose range, every spelling', () => {
  it('parses every spelling to the same address', () => {
    for (const value of [0n, 1n, 0x7f000001n, 0xc0a80001n, 0xffffffffn, 0x08080808n]) {
      for (const spelling of v4Spellings(value))
        expect(parseIpAddress(spelling), spelling).toEqual({ family: 4, value });
    }
    for (const text of ['::', '::1', 'fe80::1', '2001:db8::8:800:200c:417a', '64:ff9b::7f00:1', 'ffff::ffff']) {
      const value = v6Value(text);
      for (const spelling of v6Spellings(value))
        expect(parseIpAddress(spelling), spelling).toEqual({ family: 6, value });
    }
  });

  it('refuses the first, middle and last address of every IPv4 range, spelled every way, also inside ::ffff:0:0/96 and 64:ff9b::/96', () => {
    let checked = 0;
    for (const range of V4_RANGES) {
      for (const value of samples(range)) {
        for (const spelling of v4Spellings(value)) {
          expectRefused(spelling);
          const host = throughUrl(spelling);
          if (host !== undefined) expectRefused(host);
          checked++;
        }
        for (const prefix of [0xffff00000000n, v6Value('64:ff9b::')])
          for (const spelling of v6Spellings(prefix + value)) {
            expectRefused(spelling);
            const host = throughUrl(spelling.startsWith('[') ? spelling : `[${spelling}]`);
            if (host !== undefined) expectRefused(host);
            checked++;
          }
      }
    }
    expect(checked).toBeGreaterThan(V4_RANGES.length * 3 * 20);
  });

  it('refuses the first, middle and last address of every IPv6 range, spelled every way', () => {
    for (const range of V6_RANGES) {
      // ::ffff:0:0/96 is judged by the IPv4 inside it: its samples here hold special IPv4 addresses.
      const values =
        range.cidr === '::ffff:0:0/96'
          ? [range.first, range.first + 0x7f000001n, range.first + 0xc0a80101n, range.last]
          : samples(range);
      for (const value of values)
        for (const spelling of v6Spellings(value)) {
          expectRefused(spelling);
          const host = throughUrl(spelling.startsWith('[') ? spelling : `[${spelling}]`);
          if (host !== undefined) expectRefused(host);
        }
    }
  });

  it('refuses whole the IPv6 forms whose embedded IPv4 is not what they reach, even a public one inside', () => {
    const publicV4 = v4Value('8.8.8.8');
    for (const address of [
      `::${v4Text(publicV4)}`, // IPv4-compatible
      `::ffff:0:${v4Text(publicV4)}`, // IPv4-translated
      `64:ff9b:1::${v4Text(publicV4)}`, // local-use NAT64
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2001:0:808:808::1', // Teredo with server 8.8.8.8
    ])
      expectRefused(address);
  });

  it("refuses the issue's three stored URLs and the spellings refused before", () => {
    for (const url of [
      'https://[::127.0.0.1]:20462/x',
      'https://[::ffff:0:7f00:1]/x',
      'https://[64:ff9b:1::7f00:1]/x',
      'https://127.1/x',
      'https://2130706433/x',
      'https://0x7f000001/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[64:ff9b::7f00:1]/x',
      'https://0177.0.0.1./x',
      'https://[0:0:0:0:0:FFFF:7F00:0001]/x',
    ])
      expectRefused(hostOf(new URL(url)));
  });

  it('lets public addresses through, the neighbours just outside each range included, and their mapped and NAT64 forms', () => {
    const publics = [
      v4Value('8.8.8.8'),
      v4Value('1.1.1.1'),
      ...V4_RANGES.flatMap((r) => [r.first - 1n, r.last + 1n]).filter(
        (v) => v >= 0n && v <= 0xffffffffn && !inAny(V4_RANGES, v),
      ),
    ];
    expect(publics.length).toBeGreaterThan(20);
    for (const value of publics) {
      for (const spelling of v4Spellings(value))
        expect(classifyAddress(spelling), spelling).toEqual({ kind: 'public' });
      for (const prefix of [0xffff00000000n, v6Value('64:ff9b::')])
        expect(classifyAddress(v6Compressed(prefix + value))).toEqual({ kind: 'public' });
    }
    const publicV6 = [
      v6Value('2606:4700:4700::1111'),
      v6Value('2001:4860:4860::8888'),
      ...V6_RANGES.flatMap((r) => [r.first - 1n, r.last + 1n]).filter(
        (v) => v >= GLOBAL_UNICAST.first && v <= GLOBAL_UNICAST.last && !inAny(V6_RANGES, v),
      ),
    ];
    expect(publicV6.length).toBeGreaterThan(10);
    for (const value of publicV6)
      for (const spelling of v6Spellings(value))
        expect(classifyAddress(spelling), spelling).toEqual({ kind: 'public' });
  });

  it('refuses every IPv6 address outside global unicast 2000::/3 (nothing public lives there)', () => {
    for (const text of ['1::', '1fff:ffff::1', '4000::1', '8000::', 'fb00::1', 'feff::1'])
      expect(classifyAddress(text).kind, text).toBe('special');
  });

  it('agrees with the registry on 30,000 random addresses in random spellings', () => {
    let seed = 36;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const random32 = () => (BigInt(random()) << 16n) ^ BigInt(random() & 0xffff);
    for (let i = 0; i < 10_000; i++) {
      const value = random32() & 0xffffffffn;
      const spellings = v4Spellings(value);
      const spelling = spellings[random() % spellings.length]!;
      expect(classifyAddress(spelling).kind, spelling).toBe(inAny(V4_RANGES, value) ? 'special' : 'public');
      const mapped = 0xffff00000000n + value;
      expect(classifyAddress(v6Compressed(mapped)).kind).toBe(inAny(V4_RANGES, value) ? 'special' : 'public');
    }
    for (let i = 0; i < 10_000; i++) {
      // Random addresses in 2000::/3, half of them near a range's edges.
      let value = GLOBAL_UNICAST.first;
      for (let g = 0; g < 8; g++) value = (value << 16n) | BigInt(random() & 0xffff);
      value = GLOBAL_UNICAST.first + (value % (GLOBAL_UNICAST.last - GLOBAL_UNICAST.first + 1n));
      if (i % 2 === 1) {
        const range = V6_RANGES.filter((r) => r.first >= GLOBAL_UNICAST.first)[random() % 14]!;
        value = (i % 4 === 1 ? range.first : range.last) + BigInt((random() % 5) - 2);
      }
      const spellings = v6Spellings(value);
      const spelling = spellings[random() % spellings.length]!;
      const expected = inAny(V6_RANGES, value) || !inAny([GLOBAL_UNICAST], value) ? 'special' : 'public';
      expect(classifyAddress(spelling).kind, spelling).toBe(expected);
    }
  });

  it('takes host names for names, not addresses (they are resolved and each answer is judged)', () => {
    for (const name of [
      'example.com',
      'localhost',
      'localhost.',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.0x100',
      '::1::',
      'fe80::1]',
    ])
      expect(classifyAddress(name).kind, name).toBe('not-an-address');
    // A zone id cannot reach a stored URL: the URL parser refuses it.
    expect(throughUrl('[fe80::1%25eth0]')).toBeUndefined();
  });
});
