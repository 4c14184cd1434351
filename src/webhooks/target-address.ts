import dns from 'node:dns';
import { classifyAddress } from './special-addresses.js';

/**
 * SSRF guard: a webhook may only reach public addresses (special-addresses.ts classifies them).
 * Checked when the webhook is created and again at every delivery, inside the connection's own
 * lookup (https-post.ts), so the address checked is the address connected to: a name that
 * resolves to a private address later, or differently per query, is refused too.
 * ADREPORT_WEBHOOK_ALLOW_PRIVATE=true lifts it (tests, a receiver on the same network).
 */

/** Why an address (any spelling) may not be a webhook's target, or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const verdict = classifyAddress(address);
  if (verdict.kind === 'not-an-address') return `${address} is not an IP address`;
  return verdict.kind === 'special' ? `${address} is ${verdict.reason}` : undefined;
}

/** Whether a host is an address literal (in any spelling the classification knows) rather than a name. */
export function isAddressLiteral(host: string): boolean {
  return classifyAddress(host).kind !== 'not-an-address';
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
  if (isAddressLiteral(host)) {
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
  const refused = firstRefused(host, addresses);
  if (refused) throw new TargetRefused('private_address', refused);
}

/** Why one of a name's addresses may not be connected to (one refuses the name), or undefined. */
export function firstRefused(host: string, addresses: ReadonlyArray<{ address: string }>): string | undefined {
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (verdict.kind === 'not-an-address') return `${host} resolves to ${address}, not an IP address`;
    if (verdict.kind === 'special') return `${host} resolves to ${address}, which is ${verdict.reason}`;
  }
  return undefined;
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
