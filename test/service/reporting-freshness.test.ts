import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueTrailingSyncs } from '../../src/jobs/statistics-sync-queue.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import type { SqlValue } from '../../src/store/sql-values.js';
import { createAccount, jsonRequest, linkedGoogleAccount, otherTenantToken } from '../helpers/accounts.js';
import type { HttpResponse } from '../helpers/http.js';
import { waitForIdleJobs, waitForJob } from '../helpers/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Issue 23 item 5: every report says how complete its data is. A real server over HTTPS on a real
 * DuckDB file; platform accounts synced through the sandbox's statistics sync (the job runner),
 * the service clock moved by days. Expected values are computed here from the stored
 * statistics_sources rows and the spec (a day is final when fetched 14 days after it ended).
 */
const DAY = 24 * 3600_000;
/** The sandbox's conversion lag (the spec: 14 days). */
const LAG_DAYS = 14;
const P = '/provisioning/v0';
let clockOffset = 0;
const now = () => new Date(Date.now() + clockOffset);

let server: TestServer;
let token: string;
/** Account A: linked to PA1, whose campaign is imported and synced. */
let synced: { accountId: number; platformAccountId: number; adPlatformId: string };
/** Account B: linked to PA2, never synced. */
let unsynced: { accountId: number; platformAccountId: number };
let campaignId: number;

const get = async (pathAndQuery: string, headers: Record<string, string> = {}, as?: string) =>
  server.http.get(pathAndQuery, { authorization: `Bearer ${as ?? token}`, ...headers });
const sql = <T extends object>(text: string, params: SqlValue[] = []) =>
  server.service.db.read((r) => r.all<T>(text, params));

interface SourceRow {
  id: number;
  syncedThrough: string | null;
  syncedAtMs: number | null;
}

/** The stored sync state of a platform account, straight from statistics_sources. */
async function sourceOf(platformAccountId: number): Promise<SourceRow> {
  const [row] = await sql<SourceRow>(
    `SELECT p.id::INTEGER AS id, strftime(s.synced_through, '%Y-%m-%d') AS "syncedThrough", epoch_ms(s.synced_at)::DOUBLE AS "syncedAtMs"
       FROM adplatform_accounts p LEFT JOIN statistics_sources s ON s.adplatform_account_id = p.id WHERE p.id = $1`,
    [platformAccountId],
  );
  return row!;
}

/** By hand: the last day D <= synced_through with D's end (next midnight UTC) at least 14 days before synced_at. */
function expectedCompleteThrough(source: SourceRow): string | null {
  if (source.syncedThrough === null || source.syncedAtMs === null) return null;
  let day = source.syncedThrough;
  while (Date.parse(`${addDays(day, 1)}T00:00:00Z`) > source.syncedAtMs - LAG_DAYS * DAY) day = addDays(day, -1);
  return day;
}

function expectedAccount(source: SourceRow, backfillRunning = false) {
  return {
    id: source.id,
    adPlatformType: 'GOOGLE_ADS',
    syncedThrough: source.syncedThrough,
    lastSyncedAt: source.syncedAtMs === null ? null : new Date(source.syncedAtMs).toISOString(),
    completeThrough: expectedCompleteThrough(source),
    backfillRunning,
  };
}

const warningOf = (res: HttpResponse) =>
  ((res.json.warnings ?? []) as Array<{ code: string }>).find((w) => w.code === 'incomplete_data') as
    Record<string, unknown> | undefined;

beforeAll(async () => {
  server = await startTestServer(
    {
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
      jobs: { backoffBaseMs: 10, maxBackoffMs: 50, pollMs: 50 },
      statistics: { backfillDays: 40, trailingDays: 20 },
    },
    { nowMs: () => now().getTime() },
  );
  token = await server.token();
  synced = await linkedGoogleAccount(server, token, 'Freshness synced');
  const campaigns = await server.service.platforms.connector(1, 'GOOGLE_ADS').listCampaigns(synced.adPlatformId);
  const imported = await jsonRequest(
    server,
    token,
    'POST',
    `${P}/adplatform-accounts/id/${synced.platformAccountId}/campaigns`,
    { campaign: { adPlatformId: campaigns[0]!.adPlatformId, campaignGroup: 'Fresh' } },
  );
  const job = await waitForJob(server, token, imported.json.job.id);
  campaignId = job.result.campaign.id;
  await waitForIdleJobs(server, token);

  // A second account linked to another platform account of the manager, never synced.
  const auth = { authorization: `Bearer ${token}` };
  const master = (await server.http.get(`${P}/adplatform-master-accounts`, auth)).json.adPlatformMasterAccounts[0];
  const under = (await server.http.get(`${P}/adplatform-master-accounts/id/${master.id}/adplatform-accounts`, auth))
    .json.adPlatformAccounts as Array<{ adPlatformId: string }>;
  const other = under.find((p) => p.adPlatformId !== synced.adPlatformId)!;
  const account = await createAccount(server, token, { name: 'Freshness never synced' });
  const linked = await jsonRequest(server, token, 'POST', `${P}/accounts/id/${account.id}/adplatform-accounts`, {
    adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: other.adPlatformId },
  });
  expect(linked.status).toBe(201);
  unsynced = { accountId: account.id as number, platformAccountId: linked.json.adPlatformAccount.id as number };
}, 300_000);
afterAll(() => server.close());

describe('freshness of a report', () => {
  it('completeThrough of a synced platform account: its last day fetched 14 days after it ended', async () => {
    const source = await sourceOf(synced.platformAccountId);
    expect(source.syncedThrough).toBe(isoDate(now()));
    const expected = expectedCompleteThrough(source)!;
    // The backfill ran just now: the last final day is 15 days ago.
    expect(expected).toBe(addDays(isoDate(now()), -LAG_DAYS - 1));
    const res = await get(
      `/reporting/v0/adplatform-accounts?filter=${encodeURIComponent(`id == ${synced.platformAccountId}`)}`,
    );
    expect(res.status).toBe(200);
    expect(res.json.meta).toEqual({
      freshness: { completeThrough: expected, platformAccounts: [expectedAccount(source)] },
    });
    expect(res.headers['x-data-complete-through']).toBe(expected);
    // meta is the body's last member.
    expect(Object.keys(res.json).at(-1)).toBe('meta');
  });

  it('an account never synced does not hide the complete day of the synced one; the warning names it apart', async () => {
    const res = await get(
      `/reporting/v0/accounts?filter=${encodeURIComponent(`id in [${synced.accountId}, ${unsynced.accountId}]`)}`,
    );
    expect(res.status).toBe(200);
    const freshness = res.json.meta.freshness;
    const syncedSource = await sourceOf(synced.platformAccountId);
    // The complete day of the synced accounts: the never synced one has no figures to be final.
    expect(freshness.completeThrough).toBe(expectedCompleteThrough(syncedSource));
    expect(freshness.platformAccounts).toEqual(
      [expectedAccount(syncedSource), expectedAccount(await sourceOf(unsynced.platformAccountId))].sort(
        (a, b) => a.id - b.id,
      ),
    );
    expect(res.headers['x-data-complete-through']).toBe(expectedCompleteThrough(syncedSource));
    // The default range ends yesterday, after the synced account's complete day too: both may change.
    expect(warningOf(res)).toMatchObject({
      code: 'incomplete_data',
      completeThrough: expectedCompleteThrough(syncedSource),
      platformAccountCount: 2,
      platformAccountIds: [synced.platformAccountId, unsynced.platformAccountId].sort((a, b) => a - b),
      neverSyncedCount: 1,
      neverSyncedIds: [unsynced.platformAccountId],
    });
    // Only the never synced account unfiltered: nothing is complete.
    const alone = await get(`/reporting/v0/accounts?filter=${encodeURIComponent(`id == ${unsynced.accountId}`)}`);
    expect(alone.json.meta.freshness.completeThrough).toBeNull();
    expect(alone.headers['x-data-complete-through']).toBeUndefined();
    expect(warningOf(alone)).toMatchObject({ completeThrough: null, platformAccountCount: 1, neverSyncedCount: 1 });
  });

  it('entity filters narrow the platform accounts; statistic filters do not', async () => {
    const source = await sourceOf(synced.platformAccountId);
    const only = await get(`/reporting/v0/accounts?filter=${encodeURIComponent(`id == ${synced.accountId}`)}`);
    expect(only.json.meta.freshness).toEqual({
      completeThrough: expectedCompleteThrough(source),
      platformAccounts: [expectedAccount(source)],
    });
    const byName = await get(`/reporting/v0/accounts?name=${encodeURIComponent('Freshness never*')}`);
    expect(byName.json.meta.freshness.platformAccounts.map((p: { id: number }) => p.id)).toEqual([
      unsynced.platformAccountId,
    ]);
    // Campaigns: the platform accounts of the campaigns listed.
    const campaigns = await get(`/reporting/v0/campaigns?filter=${encodeURIComponent(`id == ${campaignId}`)}`);
    expect(campaigns.json.meta.freshness.platformAccounts.map((p: { id: number }) => p.id)).toEqual([
      synced.platformAccountId,
    ]);
    // A filter on statistics removes rows, not platform accounts.
    const impossible = await get(
      `/reporting/v0/accounts?filter=${encodeURIComponent(`id == ${synced.accountId} && statistics.clicks < 0`)}`,
    );
    expect(impossible.json.accounts).toEqual([]);
    expect(impossible.json.meta.freshness.platformAccounts.map((p: { id: number }) => p.id)).toEqual([
      synced.platformAccountId,
    ]);
    // Nothing matches: no platform account, nothing to vouch for.
    const none = await get(`/reporting/v0/accounts?filter=${encodeURIComponent('id == 0')}`);
    expect(none.json.meta).toEqual({ freshness: { completeThrough: null, platformAccounts: [] } });
    expect(none.json.warnings).toBeUndefined();
    expect(none.headers['x-data-complete-through']).toBeUndefined();
  });

  it('warns exactly when the range ends after completeThrough, on JSON and exports', async () => {
    const complete = expectedCompleteThrough(await sourceOf(synced.platformAccountId))!;
    const filter = encodeURIComponent(`id == ${synced.accountId}`);
    const upTo = (end: string, format = 'json') =>
      get(`/reporting/v0/accounts?filter=${filter}&startDate=${addDays(complete, -9)}&endDate=${end}&format=${format}`);
    const inside = await upTo(complete);
    expect(inside.status).toBe(200);
    expect(warningOf(inside)).toBeUndefined();
    const past = await upTo(addDays(complete, 1));
    expect(warningOf(past)).toMatchObject({
      code: 'incomplete_data',
      completeThrough: complete,
      platformAccountCount: 1,
      platformAccountIds: [synced.platformAccountId],
    });
    expect(past.json.warnings.at(-1).message).toContain(complete);

    const csvInside = await upTo(complete, 'csv');
    expect(csvInside.headers['x-data-complete-through']).toBe(complete);
    // (The account converts MXN into EUR: estimated_fx_rates may be said, incomplete_data not.)
    expect(String(csvInside.headers['adreport-warnings'] ?? '')).not.toContain('incomplete_data');
    const csvPast = await upTo(addDays(complete, 1), 'csv');
    expect(csvPast.status).toBe(200);
    expect(csvPast.headers['x-data-complete-through']).toBe(complete);
    expect(String(csvPast.headers['adreport-warnings']).split(', ')).toContain(
      `incomplete_data;through="${complete}";accounts=1`,
    );
    const ndjson = await upTo(addDays(complete, 1), 'ndjson');
    expect(ndjson.headers['x-data-complete-through']).toBe(complete);
  });

  it('a running backfill is flagged, and neither a 304 nor the page cache answers with a stale freshness', async () => {
    // A fixed range: the plan stays the same while the clock moves.
    const today = isoDate(now());
    const query = `/reporting/v0/adplatform-accounts?startDate=${addDays(today, -30)}&endDate=${today}&filter=${encodeURIComponent(`id == ${synced.platformAccountId}`)}`;
    const before = await get(query);
    expect(before.json.meta.freshness.platformAccounts[0].backfillRunning).toBe(false);
    expect((await get(query, { 'if-none-match': String(before.headers.etag) })).status).toBe(304);
    expect((await get(query)).headers['x-cache']).toBe('hit');

    // Two days pass: what the report says depends on the syncs, not on the clock.
    clockOffset += 2 * DAY;
    token = await server.token();
    expect((await get(query, { 'if-none-match': String(before.headers.etag) })).status).toBe(304);

    // A sync starts and takes a while (each platform call 3 s): queued and running write no report data.
    const version = server.service.db.versions.of(1);
    server.service.platforms.setFaults(1, 'GOOGLE_ADS', { latencyMs: 3000 });
    const [job] = await queueTrailingSyncs(server.service.db, server.service.jobs, now(), 20, 1);
    try {
      const running = await get(query, { 'if-none-match': String(before.headers.etag) });
      expect(running.status).toBe(200);
      expect(running.headers['x-cache']).toBe('miss');
      expect(running.json.meta.freshness.platformAccounts[0]).toMatchObject({ backfillRunning: true });
      expect(running.json.meta.freshness.completeThrough).toBe(before.json.meta.freshness.completeThrough);
      // The data version did not move: the new ETag comes from the freshness alone.
      expect(server.service.db.versions.of(1)).toBe(version);
      const pending = await sql<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM jobs WHERE status IN ('QUEUED', 'RUNNING') AND id = $1`,
        [job!.id],
      );
      expect(pending[0]!.n).toBe(1);
      const done = await waitForJob(server, token, job!.id, undefined, 60_000);
      expect(done.status).toBe('SUCCEEDED');

      // Done: neither the ETag of the running answer nor its cached page answers any more.
      const after = await get(query, { 'if-none-match': String(running.headers.etag) });
      expect(after.status).toBe(200);
      expect(after.headers['x-cache']).toBe('miss');
      const source = await sourceOf(synced.platformAccountId);
      expect(source.syncedThrough).toBe(isoDate(now()));
      expect(after.json.meta.freshness).toEqual({
        completeThrough: expectedCompleteThrough(source),
        platformAccounts: [expectedAccount(source)],
      });
      // Synced two days later: two more days are final.
      expect(expectedCompleteThrough(source)).toBe(addDays(before.json.meta.freshness.completeThrough, 2));
      expect(after.headers['x-data-complete-through']).toBe(expectedCompleteThrough(source));
      // Nothing changed since: 304, then the cached page.
      expect((await get(query, { 'if-none-match': String(after.headers.etag) })).status).toBe(304);
      const again = await get(query);
      expect(again.headers['x-cache']).toBe('hit');
      expect(again.json).toEqual(after.json);
    } finally {
      server.service.platforms.setFaults(1, 'GOOGLE_ADS', {});
    }
  }, 300_000);

  it("lists only the organization's own platform accounts", async () => {
    const otherToken = await otherTenantToken(server);
    const mine = await get('/reporting/v0/adplatform-accounts');
    const ids = (mine.json.meta.freshness.platformAccounts as Array<{ id: number }>).map((p) => p.id);
    const own = await sql<{ id: number }>(
      'SELECT id::INTEGER AS id FROM adplatform_accounts WHERE organization_id = 1 ORDER BY id',
    );
    expect(ids).toEqual(own.map((r) => r.id));
    expect(ids).toContain(synced.platformAccountId);
    const theirs = await get('/reporting/v0/adplatform-accounts', {}, otherToken);
    expect(theirs.status).toBe(200);
    const theirIds = (theirs.json.meta.freshness.platformAccounts as Array<{ id: number }>).map((p) => p.id);
    for (const id of theirIds) expect(ids).not.toContain(id);
    expect(theirs.json.meta.freshness.platformAccounts).toEqual([]);
    const accounts = await get('/reporting/v0/accounts', {}, otherToken);
    expect(accounts.json.meta).toEqual({ freshness: { completeThrough: null, platformAccounts: [] } });
  });
});
