import dns from 'node:dns';
import net from 'node:net';

/**
 * SSRF guard: a webhook may only reach public addresses. Checked when the webhook is created and
 * again at every delivery after DNS resolution (inside the connection's own lookup, so a name
 * that resolves to a private address later, or differently per query, is refused too).
 * ADREPORT_WEBHOOK_ALLOW_PRIVATE=true lifts it (tests, a receiver on the same network).
 */
const REFUSED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  REFUSED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
] as const)
  REFUSED.addSubnet(prefix, bits, 'ipv6');

/** Why an address may not be a webhook's target, or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    // IPv4 inside IPv6 (::ffff:a.b.c.d mapped, 64:ff9b::/96 NAT64, ::a.b.c.d compatible) is that IPv4 address.
    const embedded = embeddedIpv4(address);
    if (embedded !== undefined) return refusedAddress(embedded);
    return REFUSED.check(address, 'ipv6')
      ? `${address} is a loopback, private, link-local or reserved address`
      : undefined;
  }
  return REFUSED.check(address, 'ipv4')
    ? `${address} is a loopback, private, link-local or reserved address`
    : undefined;
}

function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** A URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type Lookup = (host: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export const systemLookup: Lookup = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Every address the host has must be public; one private answer refuses the whole name (a
 * receiver would otherwise be reachable there on a later query). Throws TargetRefused.
 */
export async function checkHost(
  host: string,
  options: { allowPrivate: boolean; lookup: Lookup; timeoutMs: number },
): Promise<void> {
  if (net.isIP(host) !== 0) {
    const reason = options.allowPrivate ? undefined : refusedAddress(host);
    if (reason) throw new TargetRefused('private_address', reason);
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TargetRefused('host_not_found', `${host} did not resolve within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  let addresses: ReadonlyArray<{ address: string }>;
  try {
    addresses = await Promise.race([options.lookup(host), timeout]);
  } catch (error) {
    if (error instanceof TargetRefused) throw error;
    throw new TargetRefused(
      'host_not_found',
      `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
    );
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) throw new TargetRefused('host_not_found', `${host} has no address`);
  if (options.allowPrivate) return;
  for (const { address } of addresses) {
    const reason = refusedAddress(address);
    if (reason) throw new TargetRefused('private_address', `${host} resolves to ${reason}`);
  }
}

export class TargetRefused extends Error {
  constructor(
    readonly code: 'private_address' | 'host_not_found',
    message: string,
  ) {
    super(message);
    this.name = 'TargetRefused';
  }
}
