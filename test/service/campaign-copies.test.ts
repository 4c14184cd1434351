import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const P = '/provisioning/v0';
let server: TestServer;
let token: string;
let auth: Record<string, string>;
let google: { id: number; currency: string };
let microsoft: { id: number };
let sourceCampaigns: Array<{ id: number; name: string; campaignGroup: string }>;

const post = (path: string, body: unknown) => jsonRequest(server, token, 'POST', `${P}${path}`, body);
const copy = (campaignIds: number[], from = google.id, to = microsoft.id) =>
  post('/campaign-copies', {
    campaignCopy: { sourceAdPlatformAccountId: from, targetAdPlatformAccountId: to, campaignIds },
  });
const campaignsOf = async (platformAccountId: number) =>
  (await server.http.get(`${P}/campaigns?adPlatformAccountId=${platformAccountId}&limit=100`, auth)).json
    .campaigns as Array<Record<string, any>>;

beforeAll(async () => {
  server = await startTestServer({
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    jobs: { backoffBaseMs: 10, maxBackoffMs: 50 },
  });
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  const masters = (await server.http.get(`${P}/adplatform-master-accounts`, auth)).json.adPlatformMasterAccounts;
  const [gMaster, mMaster] = [
    masters.find((m: any) => m.adPlatformType === 'GOOGLE_ADS'),
    masters.find((m: any) => m.adPlatformType === 'MICROSOFT_ADVERTISING'),
  ];
  const gAccount = (await server.http.get(`${P}/adplatform-master-accounts/id/${gMaster.id}/adplatform-accounts`, auth))
    .json.adPlatformAccounts[0];
  const account = await createAccount(server, token);
  const linked = await post(`/accounts/id/${account.id}/adplatform-accounts`, {
    adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: gAccount.adPlatformId },
  });
  google = { id: linked.json.adPlatformAccount.id, currency: gAccount.currency };
  // The copy target: a new, empty MICROSOFT_ADVERTISING account in the same currency.
  const created = await post(`/adplatform-master-accounts/id/${mMaster.id}/adplatform-accounts`, {
    adPlatformAccount: { name: 'Copy target', currency: gAccount.currency, timeZone: 'Europe/Berlin' },
  });
  microsoft = { id: (await waitForJob(server, token, created.json.job.id)).result.adPlatformAccount.id };
  const available = (
    await server.http.get(`${P}/adplatform-accounts/id/${google.id}/available-campaigns`, auth)
  ).json.campaigns.filter((c: any) => c.status !== 'REMOVED');
  for (const [i, campaign] of available.slice(0, 4).entries()) {
    await waitForJob(
      server,
      token,
      (
        await post(`/adplatform-accounts/id/${google.id}/campaigns`, {
          campaign: { adPlatformId: campaign.adPlatformId, campaignGroup: `Group ${i}` },
        })
      ).json.job.id,
    );
  }
  sourceCampaigns = (await campaignsOf(google.id)) as typeof sourceCampaigns;
  expect(sourceCampaigns.length).toBe(4);
});
afterAll(() => server.close());
afterEach(() => server.service.platforms.clearFaults());

describe('POST /campaign-copies (COPY_CAMPAIGNS)', () => {
  it('creates each campaign tree at the other platform, imports the copy and records the pairs', async () => {
    const [a, b] = sourceCampaigns;
    const res = await copy([a!.id, b!.id]);
    expect(res.status).toBe(202);
    expect(res.json.job.type).toBe('COPY_CAMPAIGNS');
    const job = await waitForJob(server, token, res.json.job.id);
    expect(job.status).toBe('SUCCEEDED');
    expect(job.result.failed).toEqual([]);
    expect(job.result.copies.map((c: any) => c.sourceCampaignId)).toEqual([a!.id, b!.id]);
    const copies = await campaignsOf(microsoft.id);
    for (const [i, source] of [a!, b!].entries()) {
      const result = job.result.copies[i];
      const target = copies.find((c) => c.id === result.targetCampaignId)!;
      expect(target).toMatchObject({
        adPlatformType: 'MICROSOFT_ADVERTISING',
        adPlatformId: result.targetAdPlatformId,
        campaignGroup: source.campaignGroup,
        name: source.name.slice(0, 128),
      });
      // The tree at the target matches the source tree, entity for entity, minus REMOVED ones.
      const connector = (type: 'GOOGLE_ADS' | 'MICROSOFT_ADVERTISING') => server.service.platforms.connector(1, type);
      const sourceApa = (await server.http.get(`${P}/adplatform-accounts/id/${google.id}`, auth)).json
        .adPlatformAccount;
      const targetApa = (await server.http.get(`${P}/adplatform-accounts/id/${microsoft.id}`, auth)).json
        .adPlatformAccount;
      const sourceTree = await connector('GOOGLE_ADS').fetchCampaignTree(
        sourceApa.adPlatformId,
        (source as any).adPlatformId,
      );
      const targetTree = await connector('MICROSOFT_ADVERTISING').fetchCampaignTree(
        targetApa.adPlatformId,
        result.targetAdPlatformId,
      );
      const live = sourceTree.adGroups.filter((g) => g.status !== 'REMOVED');
      expect(targetTree.adGroups.map((g) => g.name)).toEqual(live.map((g) => g.name));
      expect(targetTree.adGroups.flatMap((g) => g.keywords.map((k) => `${k.text}|${k.matchType}`))).toEqual(
        live.flatMap((g) => g.keywords.filter((k) => k.status !== 'REMOVED').map((k) => `${k.text}|${k.matchType}`)),
      );
      expect(targetTree.campaign.dailyBudget).toBe(
        Math.max(1, Math.round(sourceTree.campaign.dailyBudget * 100) / 100),
      );
    }
  });

  it('lists the campaigns the target platform refuses, with their reason, and copies the rest (PARTIALLY_SUCCEEDED)', async () => {
    const [, , c, d] = sourceCampaigns;
    server.service.platforms.setFaults('*', 'MICROSOFT_ADVERTISING', { rejectCampaigns: [d!.name.slice(0, 128)] });
    const job = await waitForJob(server, token, (await copy([c!.id, d!.id])).json.job.id);
    expect(job.status).toBe('PARTIALLY_SUCCEEDED');
    expect(job.result.copies.map((x: any) => x.sourceCampaignId)).toEqual([c!.id]);
    expect(job.result.failed).toEqual([
      {
        campaignId: d!.id,
        error: { code: 'platform_invalid_request', message: expect.stringContaining('MICROSOFT_ADVERTISING') },
      },
    ]);
    expect(job.errors).toHaveLength(1);
  });

  it('retries a transient outage without making a campaign twice', async () => {
    const [, , , d] = sourceCampaigns;
    const before = (await campaignsOf(microsoft.id)).length;
    server.service.platforms.setFaults('*', 'MICROSOFT_ADVERTISING', { failNext: 1 });
    const job = await waitForJob(server, token, (await copy([d!.id])).json.job.id);
    expect(job.status).toBe('SUCCEEDED');
    expect(job.attempts).toBe(2);
    expect((await campaignsOf(microsoft.id)).length).toBe(before + 1);
  });

  it('copies back from MICROSOFT_ADVERTISING to GOOGLE_ADS', async () => {
    const target = (await campaignsOf(microsoft.id))[0]!;
    const job = await waitForJob(server, token, (await copy([target.id], microsoft.id, google.id)).json.job.id);
    expect(job.status).toBe('SUCCEEDED');
    expect((await campaignsOf(google.id)).map((c) => c.id)).toContain(job.result.copies[0].targetCampaignId);
  });

  it.each([
    [
      'the same platform on both sides',
      () => copy([sourceCampaigns[0]!.id], google.id, google.id),
      'campaignCopy.targetAdPlatformAccountId',
      'not_allowed',
    ],
    [
      'an unknown target',
      () => copy([sourceCampaigns[0]!.id], google.id, 999_999),
      'campaignCopy.targetAdPlatformAccountId',
      'unknown',
    ],
    ['a campaign of another account', () => copy([999_999]), 'campaignCopy.campaignIds.0', 'unknown'],
    ['no campaigns', () => copy([]), 'campaignCopy.campaignIds', 'too_small'],
    [
      'duplicate campaigns',
      () => copy([sourceCampaigns[0]!.id, sourceCampaigns[0]!.id]),
      'campaignCopy.campaignIds',
      'invalid',
    ],
  ])('refuses %s with 422', async (_name, request, field, code) => {
    const res = await request();
    expect(res.status).toBe(422);
    expect(res.json.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });
});

describe('POST /campaign-copies/sync', () => {
  it('re-pushes copies and lists per campaign what failed (200, partial errors)', async () => {
    const [a, , , d] = sourceCampaigns;
    // The first copy at MICROSOFT_ADVERTISING was copied back (a source now); the last one never was.
    const uncopied = (await campaignsOf(microsoft.id)).at(-1)!;
    const res = await post('/campaign-copies/sync', { campaignIds: [a!.id, 999_999, d!.id] });
    expect(res.status).toBe(200);
    expect(res.json.synced.map((s: any) => s.sourceCampaignId)).toEqual([a!.id, d!.id]);
    expect(res.json.failed).toEqual([
      { campaignId: 999_999, error: { code: 'not_found', message: expect.any(String) } },
    ]);
    const notCopied = await post('/campaign-copies/sync', { campaignIds: [uncopied.id] });
    expect(notCopied.json.failed[0].error.code).toMatch(/not_copied/);
  });
});
