import dgram from 'node:dgram';
import dns from 'node:dns';
import type { AddressInfo } from 'node:net';
import { parseIpAddress } from '../../src/webhooks/special-addresses.js';
import type { Lookup } from '../../src/webhooks/target-address.js';

/**
 * A real DNS server on 127.0.0.1 (UDP) whose answers a test decides per query: `answer(name,
 * type, n)` gets the n-th query (from 1) of that name and type, so a name can resolve to a public
 * address when the webhook is checked and to loopback when it is connected to (DNS rebinding).
 * A Node `dns.Resolver` pointed at it (`lookup`) is the resolver the service is given.
 */
export interface TestDnsServer {
  /** Resolves through this server only (A and AAAA), as the service's webhook lookup. */
  readonly lookup: Lookup;
  /** Queries seen, in order: `A hooks.test`. */
  readonly queries: string[];
  answer: (name: string, type: 'A' | 'AAAA', n: number) => string[];
  close(): Promise<void>;
}

const TYPES: Record<number, 'A' | 'AAAA'> = { 1: 'A', 28: 'AAAA' };

export async function startDnsServer(): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  const counts = new Map<string, number>();
  const server: TestDnsServer = {
    lookup: async () => [],
    queries: [],
    answer: () => [],
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (query, peer) => {
    const { name, type, end } = question(query);
    const kind = TYPES[type];
    const key = `${kind ?? type} ${name}`;
    server.queries.push(key);
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const addresses = kind ? server.answer(name, kind, n) : [];
    socket.send(response(query, end, type, addresses), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const resolver = new dns.promises.Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${(socket.address() as AddressInfo).port}`]);
  Object.assign(server, { lookup: lookupVia(resolver) });
  return server;
}

/** A Lookup over a resolver: every A and AAAA answer; ENOTFOUND when there is none. */
export function lookupVia(resolver: dns.promises.Resolver): Lookup {
  return async (host) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const answers = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (answers.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    return answers;
  };
}

function question(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at]! !== 0) {
    const length = query[at]!;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** The query's id and question, then one record per address (TTL 0: never cached). */
function response(query: Buffer, questionEnd: number, type: number, addresses: readonly string[]): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const parsed = parseIpAddress(address)!;
    const bytes = parsed.family === 4 ? 4 : 16;
    const record = Buffer.alloc(12 + bytes);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(0, 6);
    record.writeUInt16BE(bytes, 10);
    for (let i = 0; i < bytes; i++) record[12 + i] = Number((parsed.value >> BigInt(8 * (bytes - 1 - i))) & 255n);
    return record;
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}
