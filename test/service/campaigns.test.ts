import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, linkedGoogleAccount, otherTenantToken } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 24 * 3600_000;
let clockOffset = 0;
let server: TestServer;
let token: string;
let auth: Record<string, string>;
let platformAccountId: number;
let adPlatformId: string;
const P = '/provisioning/v0';

beforeAll(async () => {
  server = await startTestServer(
    {
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
      jobs: { backoffBaseMs: 10, maxBackoffMs: 50 },
      platformSyncMs: 300,
    },
    { nowMs: () => Date.now() + clockOffset },
  );
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  ({ platformAccountId, adPlatformId } = await linkedGoogleAccount(server, token, 'Importer'));
});
afterAll(() => server.close());

const available = async (id = platformAccountId) =>
  (await server.http.get(`${P}/adplatform-accounts/id/${id}/available-campaigns`, auth)).json.campaigns as Array<{
    adPlatformId: string;
    name: string;
    status: string;
  }>;
const importOne = (body: unknown, id = platformAccountId) =>
  jsonRequest(server, token, 'POST', `${P}/adplatform-accounts/id/${id}/campaigns`, body);
const campaigns = async (query = '') =>
  (await server.http.get(`${P}/campaigns${query}`, auth)).json.campaigns as Array<Record<string, any>>;

describe('importing one campaign (IMPORT_CAMPAIGN)', () => {
  it('lists the campaigns the platform has and imports one with its whole tree', async () => {
    const before = await available();
    expect(before.length).toBeGreaterThan(0);
    for (const campaign of before)
      expect(campaign).toEqual({
        adPlatformId: expect.any(String),
        name: expect.any(String),
        status: expect.stringMatching(/ENABLED|PAUSED|REMOVED/),
      });
    const target = before[0]!;
    const res = await importOne({ campaign: { adPlatformId: target.adPlatformId, campaignGroup: 'Brand' } });
    expect(res.status).toBe(202);
    expect(res.json.job.type).toBe('IMPORT_CAMPAIGN');
    const job = await waitForJob(server, token, res.json.job.id);
    expect(job.status).toBe('SUCCEEDED');
    expect(job.result.alreadyImported).toBe(false);

    // The tree in the store is the tree the platform returns.
    const tree = await server.service.platforms
      .connector(1, 'GOOGLE_ADS')
      .fetchCampaignTree(adPlatformId, target.adPlatformId);
    const expected = {
      adGroups: tree.adGroups.length,
      keywords: tree.adGroups.reduce((n, g) => n + g.keywords.length, 0),
      ads: tree.adGroups.reduce((n, g) => n + g.ads.length, 0),
    };
    expect(job.result.imported).toEqual(expected);
    const stored = await server.service.db.read((r) =>
      r.one<{ adGroups: number; keywords: number; ads: number }>(
        `SELECT (SELECT count(*) FROM ad_groups WHERE campaign_id = $1)::INT AS "adGroups",
                (SELECT count(*) FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id WHERE g.campaign_id = $1)::INT AS keywords,
                (SELECT count(*) FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id WHERE g.campaign_id = $1)::INT AS ads`,
        [job.result.campaign.id],
      ),
    );
    expect(stored).toEqual(expected);

    const listed = (await campaigns(`?adPlatformAccountId=${platformAccountId}`)).find(
      (c) => c.adPlatformId === target.adPlatformId,
    );
    expect(listed).toEqual({
      id: job.result.campaign.id,
      name: target.name,
      adPlatformId: target.adPlatformId,
      adPlatformAccountId: platformAccountId,
      adPlatformType: 'GOOGLE_ADS',
      status: target.status,
      campaignGroup: 'Brand',
      labels: {},
      importedAt: expect.any(String),
    });
    expect((await available()).map((c) => c.adPlatformId)).not.toContain(target.adPlatformId);
    expect((await server.http.get(`${P}/campaigns/id/${listed!.id}`, auth)).json.campaign).toEqual(listed);
  });

  it('treats importing an imported campaign as a no-op that says so', async () => {
    const [first] = await campaigns();
    const total = (await server.http.get(`${P}/campaigns`, auth)).headers['x-totalcount'];
    const job = await waitForJob(
      server,
      token,
      (await importOne({ campaign: { adPlatformId: first!.adPlatformId, campaignGroup: 'Other' } })).json.job.id,
    );
    expect(job.status).toBe('SUCCEEDED');
    expect(job.result).toMatchObject({
      alreadyImported: true,
      imported: null,
      campaign: { id: first!.id, campaignGroup: 'Brand' },
    });
    expect((await server.http.get(`${P}/campaigns`, auth)).headers['x-totalcount']).toBe(total);
  });

  it.each([
    [{ campaign: { adPlatformId: '123' } }, 'campaign.campaignGroup', 'required'],
    [{ campaign: { adPlatformId: '123', campaignGroup: '' } }, 'campaign.campaignGroup', 'too_short'],
    [{ campaign: { campaignGroup: 'x' } }, 'campaign.adPlatformId', 'required'],
    [{ campaign: { adPlatformId: '123', campaignGroup: 'x', labels: {} } }, 'campaign.labels', 'unknown_field'],
  ])('refuses %j with 422', async (body, field, code) => {
    const res = await importOne(body);
    expect(res.status).toBe(422);
    expect(res.json.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });

  it('fails the job with the platform reason for a campaign the platform does not have', async () => {
    const job = await waitForJob(
      server,
      token,
      (await importOne({ campaign: { adPlatformId: '99999999999', campaignGroup: 'x' } })).json.job.id,
    );
    expect(job.status).toBe('FAILED');
    expect(job.errors[0].code).toBe('platform_not_found');
  });

  it('answers 404 for an unknown platform account and for another organization', async () => {
    expect((await importOne({ campaign: { adPlatformId: '1', campaignGroup: 'x' } }, 999_999)).status).toBe(404);
    expect((await server.http.get(`${P}/adplatform-accounts/id/999999/available-campaigns`, auth)).status).toBe(404);
    const theirs = { authorization: `Bearer ${await otherTenantToken(server)}` };
    expect(
      (await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}/available-campaigns`, theirs)).status,
    ).toBe(404);
    expect((await server.http.get(`${P}/campaigns`, theirs)).json.campaigns).toEqual([]);
    const ourAccount = (await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}`, auth)).json
      .adPlatformAccount.linkedAccountIds[0];
    const filtered = await server.http.get(`${P}/campaigns?accountId=${ourAccount}`, theirs);
    expect(filtered.json.campaigns).toEqual([]);
    expect(filtered.headers['x-totalcount']).toBe('0');
  });

  it('marks the links NO_ACCESS when the platform revoked access', async () => {
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    try {
      const res = await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}/available-campaigns`, auth);
      expect(res.status).toBe(422);
      const account = (await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}`, auth)).json
        .adPlatformAccount;
      const links = (await server.http.get(`${P}/accounts/id/${account.linkedAccountIds[0]}`, auth)).json.account
        .linkedAdPlatformAccounts;
      expect(links[0].status).toBe('NO_ACCESS');
    } finally {
      server.service.platforms.clearFaults();
      const account = (await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}`, auth)).json
        .adPlatformAccount;
      await jsonRequest(
        server,
        token,
        'PATCH',
        `${P}/accounts/id/${account.linkedAccountIds[0]}/adplatform-accounts/id/${platformAccountId}`,
        { adPlatformAccount: { status: 'READ_WRITE' } },
      );
    }
  });
});

describe('autoImport (AUTO_IMPORT and the periodic platform sync)', () => {
  it('imports every campaign of the linked accounts, then campaigns created later at the platform', async () => {
    const account = (await server.http.get(`${P}/adplatform-accounts/id/${platformAccountId}`, auth)).json
      .adPlatformAccount.linkedAccountIds[0];
    const res = await jsonRequest(
      server,
      token,
      'PATCH',
      `${P}/accounts/id/${account}`,
      { account: { autoImport: true } },
      'application/merge-patch+json',
    );
    expect(res.json.account.autoImport).toBe(true);
    const jobs = (await server.http.get(`${P}/jobs?type=AUTO_IMPORT`, auth)).json.jobs;
    const job = await waitForJob(server, token, jobs.at(-1).id);
    expect(job.status).toBe('SUCCEEDED');
    expect(job.input).toEqual({ accountId: account });

    const notRemoved = (await available()).filter((c) => c.status !== 'REMOVED');
    expect(notRemoved).toEqual([]);
    const imported = await campaigns(`?accountId=${account}&limit=100`);
    const auto = imported.filter((c) => c.campaignGroup !== 'Brand');
    for (const campaign of auto) expect(campaign.campaignGroup).toBe(campaign.name);

    // Four months on, the platform has new campaigns; the periodic sync (every 300 ms here) imports them.
    const before = new Set(imported.map((c) => c.adPlatformId));
    clockOffset = 120 * DAY;
    // Tokens follow the same clock: the old one has expired.
    token = await server.token();
    auth = { authorization: `Bearer ${token}` };
    const fresh = (await available()).filter((c) => c.status !== 'REMOVED');
    expect(fresh.length).toBeGreaterThan(0);
    const deadline = Date.now() + 120_000;
    let now = await campaigns(`?accountId=${account}&limit=100`);
    while (!fresh.every((c) => now.some((i) => i.adPlatformId === c.adPlatformId)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      now = await campaigns(`?accountId=${account}&limit=100`);
    }
    for (const campaign of fresh) expect(now.map((c) => c.adPlatformId)).toContain(campaign.adPlatformId);
    expect(now.filter((c) => !before.has(c.adPlatformId)).length).toBe(fresh.length);
  });

  it('queues AUTO_IMPORT when an account is created with autoImport true', async () => {
    const withAuto = await createAccount(server, token, { autoImport: true });
    const without = await createAccount(server, token, { autoImport: false });
    // Counted per account: the periodic sync (every 300 ms here) queues more for autoImport accounts.
    const jobs = (await server.http.get(`${P}/jobs?type=AUTO_IMPORT&limit=100`, auth)).json.jobs as Array<{
      input: { accountId: number };
    }>;
    expect(jobs.filter((job) => job.input.accountId === withAuto.id).length).toBeGreaterThanOrEqual(1);
    expect(jobs.filter((job) => job.input.accountId === without.id)).toEqual([]);
  });
});

describe('GET /provisioning/v0/campaigns', () => {
  it.each([
    ['?accountId=abc', 'accountId'],
    ['?adPlatformAccountId=-1', 'adPlatformAccountId'],
    ['?limit=101', 'limit'],
    ['?name=x', 'name'],
  ])('%s is a 400 naming %s', async (query, parameter) => {
    const res = await server.http.get(`${P}/campaigns${query}`, auth);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain(parameter);
  });

  it('pages by id with X-TotalCount', async () => {
    const all = await campaigns('?limit=100');
    const page = await server.http.get(`${P}/campaigns?limit=2&offset=2`, auth);
    expect(page.json.campaigns.map((c: { id: number }) => c.id)).toEqual(all.slice(2, 4).map((c) => c.id));
    expect(page.headers['x-totalcount']).toBe(String(all.length));
  });
});
