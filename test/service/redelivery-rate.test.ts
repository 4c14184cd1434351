import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/event-log.js';
import { jsonRequest } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Issue 36 item 12: 200 redeliveries in 7 s were all accepted (the general bucket lets 50/s
 * through), each an outbound POST with 24 hours of retries. Redeliveries have a bucket of their
 * own per organization; the clock is the test's, so refills come only when the test moves it.
 */
const BURST = 3;
let frozenAt: number | undefined;
let server: TestServer;
let token: string;
let webhookId: number;
let deliveryId: number;

beforeAll(async () => {
  server = await startTestServer(
    {
      rateLimit: { redeliveriesPerMinute: 1, redeliveryBurst: BURST },
      webhooks: { allowPrivate: true, pollMs: 60_000 },
    },
    { nowMs: () => frozenAt ?? Date.now() },
  );
  token = await server.token();
  const created = await jsonRequest(server, token, 'POST', '/provisioning/v0/webhooks', {
    webhook: { url: 'https://127.0.0.1:9/hooks', events: ['job.succeeded'] },
  });
  expect(created.status).toBe(201);
  webhookId = created.json.webhook.id;
  // An event of the organization, through the code every event takes: its delivery is queued with it.
  const organizationId = (await server.http.get('/provisioning/v0/organization', { authorization: `Bearer ${token}` }))
    .json.organization.id as number;
  await server.service.db.write('no-report-data', (tx) =>
    recordEvent(tx, { organizationId, type: 'job.succeeded', data: { n: 1 }, occurredAt: new Date() }),
  );
  const log = await server.http.get(`/provisioning/v0/webhooks/id/${webhookId}/deliveries`, {
    authorization: `Bearer ${token}`,
  });
  deliveryId = log.json.deliveries[0].id;
});
afterAll(() => server.close());

const redeliver = () =>
  server.http.request('POST', `/provisioning/v0/webhooks/id/${webhookId}/deliveries/id/${deliveryId}/redeliveries`, {
    headers: { authorization: `Bearer ${token}` },
  });
const deliveryCount = async () =>
  Number(
    (
      await server.http.get(`/provisioning/v0/webhooks/id/${webhookId}/deliveries?limit=1`, {
        authorization: `Bearer ${token}`,
      })
    ).headers['x-totalcount'],
  );

describe('rating webhook redeliveries', () => {
  it('lets the burst through, then answers 429 with both RateLimit policies, and queues nothing more', async () => {
    frozenAt = Date.now();
    try {
      const before = await deliveryCount();
      // Malformed requests are 400 and take nothing from the bucket.
      for (let i = 0; i < BURST + 1; i++) {
        const malformed = await server.http.request(
          'POST',
          `/provisioning/v0/webhooks/id/${webhookId}/deliveries/id/abc/redeliveries`,
          { headers: { authorization: `Bearer ${token}` } },
        );
        expect(malformed.status).toBe(400);
        expect(malformed.json.error.details).toMatchObject([{ field: 'deliveryId' }]);
      }
      for (let i = 0; i < BURST; i++) {
        const ok = await redeliver();
        expect(ok.status, ok.text).toBe(202);
        expect(ok.headers['ratelimit-policy']).toBe(`"per-client";q=100;w=2, "redeliveries";q=${BURST};w=180`);
        expect(ok.headers.ratelimit).toContain(`"redeliveries";r=${BURST - 1 - i};`);
      }
      expect(await deliveryCount()).toBe(before + BURST);
      const refused = await redeliver();
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({ status: 429, code: 'rate_limited', details: [] });
      expect(refused.json.error.message).toContain(
        'Too many redeliveries for this organization (at most 3 at once, then 1 per minute)',
      );
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.headers['ratelimit-policy']).toBe(`"per-client";q=100;w=2, "redeliveries";q=${BURST};w=180`);
      expect(refused.headers.ratelimit).toMatch(/^"per-client";r=\d+;t=\d+, "redeliveries";r=0;t=60$/);
      expect(await deliveryCount()).toBe(before + BURST);
      // Other writes of the organization are not held by it.
      const other = await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', {
        account: { name: 'Not held', languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
      });
      expect(other.status).toBe(201);
      // A minute later one more is let in.
      frozenAt += 60_000;
      expect((await redeliver()).status).toBe(202);
      expect((await redeliver()).status).toBe(429);
      expect(await deliveryCount()).toBe(before + BURST + 1);
    } finally {
      frozenAt = undefined;
    }
  });
});
