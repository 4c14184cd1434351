import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../../src/webhooks/https-post.js';
import { jsonRequest, linkedGoogleAccount } from '../helpers/accounts.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { waitForJob } from '../helpers/jobs.js';
import { poll } from '../helpers/poll.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Issue 36 item 7: the address a delivery connects to is the address checked. The service
 * resolves webhook hosts through a real DNS server of the test's (a Node dns.Resolver pointed at
 * it), which answers a public address when the webhook is created and loopback, where the
 * receiver listens, when the delivery connects.
 */
const NAME = 'hooks.rebind.test';
const P = '/provisioning/v0';
const PUBLIC = '93.184.215.14';
let dir: string;
let dns: TestDnsServer;
let receiver: Receiver;

beforeAll(async () => {
  dir = tempDir('adreport-rebind-');
  dns = await startDnsServer();
  receiver = await startReceiver(dir, NAME);
});
afterAll(async () => {
  await receiver.close();
  await dns.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const port = () => new URL(receiver.url).port;
const aQueries = () => dns.queries.filter((q) => q === `A ${NAME}`).length;

async function serverWith(allowPrivate: boolean): Promise<TestServer> {
  return startTestServer(
    {
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
      statistics: { backfillDays: 1 },
      webhooks: { allowPrivate, caFile: receiver.caFile, retryBaseMs: 60_000, pollMs: 50 },
    },
    undefined,
    { webhookLookup: dns.lookup },
  );
}

/** A webhook on `path`, then an import job whose job.succeeded event is delivered to it. */
async function webhookAndEvent(
  server: TestServer,
  path: string,
  onCreated: () => void = () => undefined,
): Promise<{ hookId: number; auth: Record<string, string> }> {
  const token = await server.token();
  const auth = { authorization: `Bearer ${token}` };
  const created = await jsonRequest(server, token, 'POST', `${P}/webhooks`, {
    webhook: { url: `https://${NAME}:${port()}${path}`, events: ['job.succeeded'] },
  });
  expect(created.status, created.text).toBe(201);
  onCreated();
  const { platformAccountId } = await linkedGoogleAccount(server, token, `Rebind ${path}`);
  const available = (
    await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}/available-campaigns`, auth)
  ).json.campaigns as Array<{ adPlatformId: string }>;
  const started = await jsonRequest(
    server,
    token,
    'POST',
    `${P}/adplatform-accounts/id/${platformAccountId}/campaigns`,
    {
      campaign: { adPlatformId: available[0]!.adPlatformId, campaignGroup: 'Rebind' },
    },
  );
  expect((await waitForJob(server, token, started.json.job.id)).status).toBe('SUCCEEDED');
  return { hookId: created.json.webhook.id as number, auth };
}

interface Attempt {
  statusCode: number | null;
  error: string | null;
}

describe('DNS answers that change between the check and the connection (DNS rebinding)', () => {
  it('refuses to connect when the name resolved public at creation and resolves to loopback at delivery', async () => {
    // Public while the webhook is checked, loopback once it is stored (a resolver may retry a query: by phase, not by count).
    let rebound = false;
    dns.answer = (name, type) => (name === NAME && type === 'A' ? [rebound ? '127.0.0.1' : PUBLIC] : []);
    const server = await serverWith(false);
    try {
      let atCreation = 0;
      const { hookId, auth } = await webhookAndEvent(server, '/rebound', () => {
        atCreation = aQueries();
        rebound = true;
      });
      expect(atCreation).toBeGreaterThanOrEqual(1); // the check at creation saw the public answer
      const attempt = await poll('the first attempt', async () => {
        const deliveries = (await server.http.get(`${P}/webhooks/id/${hookId}/deliveries`, auth)).json
          .deliveries as Array<{
          attemptLog: Attempt[];
        }>;
        return deliveries.find((d) => d.attemptLog.length > 0)?.attemptLog[0];
      });
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toMatch(
        /refused: hooks\.rebind\.test resolves to 127\.0\.0\.1, which is loopback \(127\.0\.0\.0\/8, RFC 1122\)/,
      );
      expect(aQueries()).toBeGreaterThan(atCreation); // resolved again inside the connection, and that answer was judged
      expect(receiver.received.filter((r) => r.path === '/rebound')).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('connects through the same resolver when private targets are allowed (the control: the lookup given is the one used)', async () => {
    dns.answer = (name, type) => (name === NAME && type === 'A' ? ['127.0.0.1'] : []);
    const server = await serverWith(true);
    try {
      await webhookAndEvent(server, '/allowed');
      const [delivered] = await poll('the delivery', () => {
        const found = receiver.received.filter((r) => r.path === '/allowed');
        return found.length > 0 ? found : undefined;
      });
      expect(JSON.parse(delivered!.body).type).toBe('job.succeeded');
    } finally {
      await server.close();
    }
  });

  it('refuses at connect time when any answer is special, in either family and any IPv4-in-IPv6 form', async () => {
    const ca = [fs.readFileSync(receiver.caFile, 'utf8')];
    const options = { timeoutMs: 5_000, allowPrivate: false, extraCa: ca, lookup: dns.lookup };
    const before = receiver.received.length;
    for (const [a, aaaa, reason] of [
      [[PUBLIC, '127.0.0.1'], [], 'loopback (127.0.0.0/8, RFC 1122)'],
      [[], ['::ffff:7f00:1'], 'IPv4-mapped, embedding 127.0.0.1: loopback'],
      [[], ['::7f00:1'], 'deprecated IPv4-compatible (::/96'],
      [[], ['64:ff9b:1::7f00:1'], 'local-use NAT64 translation (64:ff9b:1::/48, RFC 8215)'],
      [[PUBLIC], ['fe80::1'], 'link-local (fe80::/10, RFC 4291)'],
    ] as const) {
      dns.answer = (name, type) => (name !== NAME ? [] : type === 'A' ? [...a] : [...aaaa]);
      const result = await postJson(new URL(`https://${NAME}:${port()}/any`), '{}', {}, options);
      expect(result.statusCode, reason).toBeUndefined();
      expect(result.error, reason).toMatch(
        new RegExp(`refused: ${NAME.replaceAll('.', '\\.')} resolves to \\S+, which is `),
      );
      expect(result.error, reason).toContain(reason);
    }
    expect(receiver.received.length).toBe(before);
    // The same call with a clean answer reaches the receiver: the refusals above are the check's.
    dns.answer = (name, type) => (name === NAME && type === 'A' ? ['127.0.0.1'] : []);
    expect(
      (await postJson(new URL(`https://${NAME}:${port()}/any`), '{}', {}, { ...options, allowPrivate: true }))
        .statusCode,
    ).toBe(200);
  });
});
