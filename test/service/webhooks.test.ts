import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../../src/webhooks/https-post.js';
import { systemLookup } from '../../src/webhooks/target-address.js';
import { jsonRequest, linkedGoogleAccount, otherTenantToken } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { poll } from '../helpers/poll.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startReceiver, verifySignature, type Receiver, type Received } from '../helpers/webhook-receiver.js';

const P = '/provisioning/v0';
const RETRY_BASE_MS = 300;
let dir: string;
let receiver: Receiver;
let server: TestServer;
let token: string;
let auth: Record<string, string>;

beforeAll(async () => {
  dir = tempDir('adreport-webhooks-');
  receiver = await startReceiver(dir);
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    jobs: { backoffBaseMs: 10, maxBackoffMs: 50, pollMs: 100 },
    statistics: { backfillDays: 5 },
    webhooks: {
      allowPrivate: true,
      caFile: receiver.caFile,
      retryBaseMs: RETRY_BASE_MS,
      retryMaxMs: 5_000,
      pollMs: 50,
    },
  });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
});
afterAll(async () => {
  await server.close();
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function createWebhook(path: string, events: string[], as = token) {
  const res = await jsonRequest(server, as, 'POST', `${P}/webhooks`, {
    webhook: { url: `${receiver.url}${path}`, events, description: `test ${path}` },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.webhook as { id: number; secret: string; url: string; events: string[] };
}

interface Delivered {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, any>;
}

/** Waits for the first request to `path` whose parsed body matches. */
async function receivedAt(path: string, match: (body: Delivered) => boolean, timeoutMs = 120_000, status = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = receiver.received.filter(
      (r) => r.path === path && r.status === status && match(JSON.parse(r.body) as Delivered),
    );
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`nothing matching arrived at ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const body = (r: Received) => JSON.parse(r.body) as Delivered;
const signed = (secret: string, r: Received) =>
  verifySignature(secret, r.headers['adreport-signature'] as string, r.body, Math.floor(Date.now() / 1000));

describe('POST/GET/DELETE /provisioning/v0/webhooks', () => {
  it('creates a webhook, shows its secret once, lists and reads it without the secret', async () => {
    const res = await jsonRequest(server, token, 'POST', `${P}/webhooks`, {
      webhook: { url: `${receiver.url}/crud`, events: ['job.failed'] },
    });
    expect(res.status).toBe(201);
    const { webhook } = res.json;
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.location).toBe(`${P}/webhooks/id/${webhook.id}`);
    expect(webhook).toMatchObject({ url: `${receiver.url}/crud`, events: ['job.failed'], description: null });
    const one = await server.http.get(`${P}/webhooks/id/${webhook.id}`, auth);
    expect(one.status).toBe(200);
    expect(one.json.webhook).toEqual({ ...webhook, secret: undefined });
    expect(one.text).not.toContain(webhook.secret);
    const list = await server.http.get(`${P}/webhooks`, auth);
    expect(list.text).not.toContain('whsec_');
    expect(list.json.webhooks.map((w: { id: number }) => w.id)).toContain(webhook.id);
    expect(Number(list.headers['x-totalcount'])).toBe(list.json.webhooks.length);
    expect((await server.http.request('DELETE', `${P}/webhooks/id/${webhook.id}`, { headers: auth })).status).toBe(204);
    expect((await server.http.get(`${P}/webhooks/id/${webhook.id}`, auth)).status).toBe(404);
    expect((await server.http.request('DELETE', `${P}/webhooks/id/${webhook.id}`, { headers: auth })).status).toBe(404);
  });

  it('refuses bad bodies with 400/422 naming the field, and creates nothing', async () => {
    const before = Number((await server.http.get(`${P}/webhooks`, auth)).headers['x-totalcount']);
    const cases: Array<[unknown, number, string]> = [
      [{ url: `${receiver.url}/x`, events: ['job.failed'] }, 400, 'invalid_body'],
      [{ webhook: { url: `${receiver.url}/x`, events: [] } }, 422, 'webhook.events'],
      [{ webhook: { url: `${receiver.url}/x`, events: ['job.done'] } }, 422, 'webhook.events.0'],
      [{ webhook: { url: `${receiver.url}/x`, events: ['job.failed', 'job.failed'] } }, 422, 'webhook.events'],
      [{ webhook: { url: 'http://example.com/x', events: ['job.failed'] } }, 422, 'webhook.url'],
      [{ webhook: { url: 'https://user:pw@example.com/x', events: ['job.failed'] } }, 422, 'webhook.url'],
      [{ webhook: { url: 'https://no-such-host.invalid/x', events: ['job.failed'] } }, 422, 'webhook.url'],
      [{ webhook: { url: `${receiver.url}/x`, events: ['job.failed'], secret: 'mine' } }, 422, 'webhook.secret'],
    ];
    for (const [sent, status, field] of cases) {
      const res = await jsonRequest(server, token, 'POST', `${P}/webhooks`, sent);
      expect(res.status, JSON.stringify(sent)).toBe(status);
      if (status === 422) expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
      else expect(res.json.error.code).toBe(field);
    }
    expect(Number((await server.http.get(`${P}/webhooks`, auth)).headers['x-totalcount'])).toBe(before);
  });
});

describe('deliveries', () => {
  it('delivers the events of a real import job and its statistics sync, signed as the README says', async () => {
    const hook = await createWebhook('/all', ['job.succeeded', 'job.failed', 'statistics.synced', 'link.no_access']);
    const { platformAccountId } = await linkedGoogleAccount(server, token, 'Webhook import');
    const available = (
      await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}/available-campaigns`, auth)
    ).json.campaigns as Array<{ adPlatformId: string }>;
    const started = await jsonRequest(
      server,
      token,
      'POST',
      `${P}/adplatform-accounts/id/${platformAccountId}/campaigns`,
      {
        campaign: { adPlatformId: available[0]!.adPlatformId, campaignGroup: 'Hooks' },
      },
    );
    const importJob = await waitForJob(server, token, started.json.job.id);
    expect(importJob.status).toBe('SUCCEEDED');

    const [jobEvent] = await receivedAt('/all', (b) => b.type === 'job.succeeded' && b.data.job.id === importJob.id);
    const delivered = body(jobEvent!);
    expect(signed(hook.secret, jobEvent!)).toBe(true);
    expect(signed('whsec_wrong', jobEvent!)).toBe(false);
    // The data is the job as GET /jobs/id/{id} shows it now (it has ended, so it no longer changes).
    const shown = (await server.http.get(`${P}/jobs/id/${importJob.id}`, auth)).json.job;
    expect(delivered).toEqual({
      id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{22}$/),
      type: 'job.succeeded',
      createdAt: shown.finishedAt,
      data: { job: { kind: 'PROVISIONING', ...shown } },
    });
    expect(jobEvent!.headers['adreport-event-id']).toBe(delivered.id);
    expect(jobEvent!.headers['content-type']).toBe('application/json');

    // The import queued a backfill: its sync replaces the days of its input.
    const jobs = (await server.http.get(`${P}/jobs?type=SYNC_STATISTICS`, auth)).json.jobs as Array<{
      id: number;
      input: Record<string, any>;
    }>;
    const sync = jobs.find((j) => j.input.adPlatformAccountId === platformAccountId)!;
    expect((await waitForJob(server, token, sync.id)).status).toBe('SUCCEEDED');
    const [synced] = await receivedAt(
      '/all',
      (b) => b.type === 'statistics.synced' && b.data.adPlatformAccountId === platformAccountId,
    );
    expect(signed(hook.secret, synced!)).toBe(true);
    expect(body(synced!).data).toMatchObject({
      adPlatformAccountId: platformAccountId,
      adPlatformType: 'GOOGLE_ADS',
      firstDay: sync.input.from,
      lastDay: sync.input.to,
    });
    await receivedAt('/all', (b) => b.type === 'job.succeeded' && b.data.job.id === sync.id);

    // The delivery log says the same.
    const log = await server.http.get(`${P}/webhooks/id/${hook.id}/deliveries`, auth);
    expect(log.status).toBe(200);
    const entry = log.json.deliveries.find((d: { eventId: string }) => d.eventId === delivered.id);
    expect(entry).toMatchObject({
      webhookId: hook.id,
      eventType: 'job.succeeded',
      status: 'DELIVERED',
      attempts: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    expect(entry.attemptLog).toEqual([
      { at: expect.any(String), statusCode: 200, error: null, durationMs: expect.any(Number) },
    ]);
  });

  it('retries a receiver answering 500 with exponential backoff until it answers 2xx', async () => {
    const hook = await createWebhook('/flaky', ['job.failed']);
    receiver.answer = ({ path, seen }) => (path === '/flaky' && seen <= 3 ? 500 : 200);
    const masterId = (await server.http.get(`${P}/adplatform-master-accounts`, auth)).json.adPlatformMasterAccounts[0]
      .id;
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    let jobId: number;
    try {
      const res = await jsonRequest(
        server,
        token,
        'POST',
        `${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`,
        {
          adPlatformAccount: { name: 'Refused Ltd', currency: 'USD', timeZone: 'America/New_York' },
        },
      );
      jobId = res.json.job.id;
      expect((await waitForJob(server, token, jobId)).status).toBe('FAILED');
    } finally {
      server.service.platforms.clearFaults();
    }
    const [ok] = await receivedAt('/flaky', (b) => b.data.job.id === jobId, 120_000, 200);
    const attempts = receiver.received.filter((r) => r.path === '/flaky' && body(r).data.job.id === jobId);
    expect(attempts.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(attempts.map((r) => body(r).id)).size).toBe(1);
    expect(attempts.every((r) => signed(hook.secret, r))).toBe(true);
    // Waits of at least 300, 600, 1200 ms (timer slack only makes them longer).
    const gaps = attempts.slice(1).map((r, i) => r.at - attempts[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS - 20);
    expect(gaps[1]).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS - 20);
    expect(gaps[2]).toBeGreaterThanOrEqual(4 * RETRY_BASE_MS - 20);
    expect(ok).toBeDefined();
    // The worker records the attempt after the receiver answered: the entry may come a moment later.
    const entry = await poll('the DELIVERED entry of the flaky delivery', async () =>
      (
        (await server.http.get(`${P}/webhooks/id/${hook.id}/deliveries?status=DELIVERED`, auth)).json
          .deliveries as Array<{ eventId: string; attempts: number; attemptLog: any[]; id: number }>
      ).find((d) => d.eventId === body(ok!).id),
    );
    expect(entry.attempts).toBe(4);
    expect(entry.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 500, 200]);
    expect(entry.attemptLog[0].error).toContain('500');

    // Redeliver: the same event (id and body) again, freshly signed, as a new delivery.
    const redo = await server.http.request(
      'POST',
      `${P}/webhooks/id/${hook.id}/deliveries/id/${entry.id}/redeliveries`,
      {
        headers: auth,
      },
    );
    expect(redo.status).toBe(202);
    expect(redo.json.delivery).toMatchObject({ eventId: entry.eventId, status: 'PENDING', attempts: 0 });
    expect(redo.json.delivery.id).not.toBe(entry.id);
    expect(redo.headers.location).toBe(`${P}/webhooks/id/${hook.id}/deliveries/id/${redo.json.delivery.id}`);
    const deadline = Date.now() + 120_000;
    let again = await server.http.get(redo.headers.location as string, auth);
    while (again.json.delivery.status === 'PENDING' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await server.http.get(redo.headers.location as string, auth);
    }
    expect(again.json.delivery.status).toBe('DELIVERED');
    const copies = receiver.received.filter(
      (r) => r.path === '/flaky' && r.status === 200 && body(r).id === entry.eventId,
    );
    expect(copies).toHaveLength(2);
    expect(copies[1]!.body).toBe(copies[0]!.body);
    expect(signed(hook.secret, copies[1]!)).toBe(true);
    receiver.answer = () => 200;
  });

  it('sends link.no_access when the platform revokes access', async () => {
    const hook = await createWebhook('/links', ['link.no_access']);
    const { accountId, platformAccountId } = await linkedGoogleAccount(server, token, 'Revoked');
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    try {
      expect(
        (await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}/available-campaigns`, auth)).status,
      ).toBe(422);
    } finally {
      server.service.platforms.clearFaults();
    }
    const [event] = await receivedAt('/links', (b) => b.data.accountId === accountId);
    expect(signed(hook.secret, event!)).toBe(true);
    expect(body(event!)).toMatchObject({
      type: 'link.no_access',
      data: { accountId, adPlatformAccountId: platformAccountId, status: 'NO_ACCESS' },
    });
  });
});

describe('SSRF refusals without ADREPORT_WEBHOOK_ALLOW_PRIVATE', () => {
  it('refuses http, loopback, private and link-local targets at creation, also behind a name', async () => {
    const strict = await startTestServer({ statistics: { backfillDays: 1 } });
    try {
      const strictToken = await strict.token();
      const port = new URL(receiver.url).port;
      for (const [url, code] of [
        [`http://example.com/hook`, 'invalid_format'],
        [`https://127.0.0.1:${port}/hook`, 'private_address'],
        [`https://localhost:${port}/hook`, 'private_address'],
        ['https://10.1.2.3/hook', 'private_address'],
        ['https://169.254.169.254/latest/meta-data', 'private_address'],
        ['https://192.168.0.1/hook', 'private_address'],
        ['https://[::1]/hook', 'private_address'],
        ['https://[::ffff:127.0.0.1]/hook', 'private_address'],
        // Issue 36 item 7: accepted and stored before (IPv4-compatible, IPv4-translated, local-use NAT64).
        [`https://[::127.0.0.1]:${port}/x`, 'private_address'],
        ['https://[::ffff:0:7f00:1]/hook', 'private_address'],
        ['https://[64:ff9b:1::7f00:1]/hook', 'private_address'],
        ['https://0177.0.0.1./hook', 'private_address'],
      ]) {
        const res = await jsonRequest(strict, strictToken, 'POST', `${P}/webhooks`, {
          webhook: { url, events: ['job.failed'] },
        });
        expect(res.status, url).toBe(422);
        expect(res.json.error.details[0], url).toMatchObject({ field: 'webhook.url', code });
      }
      expect(
        (await strict.http.get(`${P}/webhooks`, { authorization: `Bearer ${strictToken}` })).json.webhooks,
      ).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('refuses at delivery after DNS: a name resolving to loopback is not connected to', async () => {
    const before = receiver.received.length;
    const options = {
      timeoutMs: 2_000,
      allowPrivate: false,
      extraCa: [fs.readFileSync(receiver.caFile, 'utf8')],
      lookup: systemLookup,
    };
    const byName = await postJson(new URL(`${receiver.url}/ssrf`), '{}', {}, options);
    expect(byName.statusCode).toBeUndefined();
    expect(byName.error).toMatch(/refused: localhost resolves to (127\.0\.0\.1|::1)/);
    const byAddress = await postJson(
      new URL(`https://127.0.0.1:${new URL(receiver.url).port}/ssrf`),
      '{}',
      {},
      options,
    );
    expect(byAddress.error).toMatch(/refused: 127\.0\.0\.1/);
    expect(
      (await postJson(new URL(`http://localhost:${new URL(receiver.url).port}/ssrf`), '{}', {}, options)).error,
    ).toMatch(/https/);
    expect(receiver.received.length).toBe(before);
    // The same receiver with the flag: reached.
    expect(
      (await postJson(new URL(`${receiver.url}/ssrf`), '{}', {}, { ...options, allowPrivate: true })).statusCode,
    ).toBe(200);
  });
});

describe('tenant isolation', () => {
  it("answers another organization's webhook and delivery ids with 404 on every route", async () => {
    const hook = await createWebhook('/mine', ['job.succeeded']);
    const theirs = await otherTenantToken(server);
    const as = { authorization: `Bearer ${theirs}` };
    // A delivery that exists, of a webhook of ours that has some.
    const ours = (await server.http.get(`${P}/webhooks`, auth)).json.webhooks as Array<{ id: number; url: string }>;
    const all = ours.find((w) => w.url.endsWith('/all'))!;
    const deliveryId = (await server.http.get(`${P}/webhooks/id/${all.id}/deliveries?limit=1`, auth)).json.deliveries[0]
      .id as number;
    expect((await server.http.get(`${P}/webhooks/id/${all.id}/deliveries/id/${deliveryId}`, as)).status).toBe(404);
    expect(
      (
        await server.http.request('POST', `${P}/webhooks/id/${all.id}/deliveries/id/${deliveryId}/redeliveries`, {
          headers: as,
        })
      ).status,
    ).toBe(404);
    expect((await server.http.get(`${P}/webhooks/id/${hook.id}`, as)).status).toBe(404);
    expect((await server.http.get(`${P}/webhooks/id/${hook.id}/deliveries`, as)).status).toBe(404);
    expect((await server.http.get(`${P}/webhooks/id/${hook.id}/deliveries/id/${deliveryId}`, as)).status).toBe(404);
    expect(
      (
        await server.http.request('POST', `${P}/webhooks/id/${hook.id}/deliveries/id/${deliveryId}/redeliveries`, {
          headers: as,
        })
      ).status,
    ).toBe(404);
    expect((await server.http.request('DELETE', `${P}/webhooks/id/${hook.id}`, { headers: as })).status).toBe(404);
    expect((await server.http.get(`${P}/webhooks`, as)).json.webhooks).toEqual([]);
    expect((await server.http.get(`${P}/webhooks/id/${hook.id}`, auth)).status).toBe(200);
  });
});
