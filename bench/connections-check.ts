/**
 * What Node's periodic check of the headers/request timeouts costs the event loop (issue 19:
 * the check interval lowered from 30 s to 1 s). N connections (in a child process) each send a
 * request head that never ends, so every one is on the list the check walks; the server's event
 * loop utilisation over 10 s is reported for each interval.
 *
 *   node --import tsx bench/connections-check.ts [--connections 5000]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { connections: { type: 'string', default: '5000' }, client: { type: 'string' } },
  allowPositionals: true,
});
const count = Number(values.connections);

if (values.client !== undefined) {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(values.client), '127.0.0.1', resolve);
      socket.on('error', () => undefined);
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
      sockets.push(socket);
    });
  }
  process.send!('ready');
  setInterval(() => undefined, 1_000);
} else {
  for (const interval of [30_000, 1_000, 30_000, 1_000]) {
    const server = http.createServer(
      { headersTimeout: 20_000, requestTimeout: 60_000, connectionsCheckingInterval: interval },
      (_req, res) => res.end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const child = fork(
      fileURLToPath(import.meta.url),
      ['--connections', String(count), '--client', String((server.address() as AddressInfo).port)],
      { execArgv: ['--import', 'tsx'] },
    );
    await new Promise((resolve) => child.once('message', resolve));
    const start = performance.eventLoopUtilization();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const elu = performance.eventLoopUtilization(start);
    console.log(
      `interval ${interval} ms, ${count} connections mid-head: event loop busy ${elu.active.toFixed(1)} ms of 10 s (${(elu.utilization * 100).toFixed(3)} %)`,
    );
    child.kill();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
