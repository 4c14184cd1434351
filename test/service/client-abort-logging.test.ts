import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCount } from '../helpers/accounts.js';
import { poll } from '../helpers/poll.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Issue 36 item 12: a client that goes away while its request body is still coming is not a
 * failure of the service: an info line without a stack, never the error log (which pages).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('a client that aborts its request', () => {
  it('is logged at info, one line without a stack, not as an error; the write does not happen', async () => {
    const token = await server.token();
    const before = await accountCount(server, token);
    const socket = tls.connect({
      host: '127.0.0.1',
      port: server.service.port,
      ca: server.service.tls!.cert,
      servername: 'localhost',
    });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    // Announces 1,000 bytes, waits for the server's 100 Continue (it has the request then), sends 11, and goes away.
    socket.write(
      `POST /provisioning/v0/accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\nX-Request-Id: abort-1\r\n\r\n`,
    );
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    await poll('100 Continue', () =>
      Buffer.concat(received).toString().startsWith('HTTP/1.1 100') ? true : undefined,
    );
    socket.write('{"account":');
    socket.destroy();
    const line = await poll('the abort is logged', () => server.logs.find((l) => l.includes('abort-1')));
    expect(line).toContain('client closed the connection');
    expect(line).toContain('POST /provisioning/v0/accounts');
    expect(line).toContain('ECONNRESET');
    expect(line).not.toMatch(/\n|\bat .*\(/);
    expect(server.errors).toEqual([]);
    expect(await accountCount(server, token)).toBe(before);
  });
});
