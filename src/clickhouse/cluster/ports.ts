import net from 'node:net';
import { LocalClusterError } from './local-cluster-error.js';

/**
 * Below Linux's ephemeral range (32768-60999): a node restarted later wants its ports back, and a
 * port of that range may meanwhile be the local end of some outgoing connection.
 */
const FIRST = 20_000;
const LAST = 32_767;

/** `count` distinct ports nothing listens on at 127.0.0.1 now, none of `taken`. */
export async function freePorts(count: number, taken: ReadonlySet<number> = new Set()): Promise<number[]> {
  const found: number[] = [];
  for (let attempt = 0; found.length < count; attempt++) {
    if (attempt > count * 50 + 100)
      throw new LocalClusterError('no-ports', `no ${count} free ports on 127.0.0.1 in ${FIRST}-${LAST}`);
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    if (taken.has(port) || found.includes(port)) continue;
    if (await canListen(port)) found.push(port);
  }
  return found;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}
