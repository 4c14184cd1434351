import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';

describe('graceful shutdown', () => {
  it('waits for a handler whose client already hung up, and closes the store only after it', async () => {
    const server = await startTestServer({ database: { readConnections: 1, maxQueued: 8 } });
    const token = await server.token();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holding = server.service.db.read(() => gate);

    // A request that queues behind the held connection; then its client disappears.
    const req = https.request({
      host: '127.0.0.1',
      port: server.service.port,
      path: '/provisioning/v0/organization',
      ca: server.service.tls!.cert,
      servername: 'localhost',
      headers: { authorization: `Bearer ${token}` },
    });
    req.on('error', () => undefined);
    req.end();
    // Time for the TLS handshake and the request to reach the queue, even on a loaded machine.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));

    let closed = false;
    const closing = server.service.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(closed).toBe(false);

    release();
    await holding;
    await closing;
    expect(closed).toBe(true);
    expect(server.errors).toEqual([]);
    server.http.close();
  });
});
