import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueTrailingSyncs } from '../../src/jobs/statistics-sync-queue.js';
import type { DailyReport } from '../../src/platforms/connector.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import { replaceDailyReport } from '../../src/statistics/fact-replacement.js';
import { jsonRequest, linkedGoogleAccount } from '../helpers/accounts.js';
import { waitForJob } from '../helpers/jobs.js';
import { rollupCheckSql, type RollupCheck } from '../helpers/rollups.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 24 * 3600_000;
const P = '/provisioning/v0';
let clockOffset = 0;
let server: TestServer;
let token: string;
let auth: Record<string, string>;
let platformAccountId: number;
let adPlatformId: string;
let campaign: { id: number; adPlatformId: string };

/** Set while two syncs are compared: see withClockStopped. */
let stoppedAt: number | undefined;
const now = () => new Date((stoppedAt ?? Date.now()) + clockOffset);

/**
 * The platform restates a day's conversions as time passes (the sandbox's RESTATEMENT_DAYS), so a
 * sync a moment later stores other figures for the last days, the more so on a busy machine. A
 * check that compares two syncs stops the service's clock between them.
 */
async function jumpToDueRetry(): Promise<void> {
  const row = await server.service.db.read((r) =>
    r.one<{ due: number | null }>(
      "SELECT epoch_ms(min(next_attempt_at))::DOUBLE AS due FROM jobs WHERE status = 'QUEUED' AND attempts > 0",
    ),
  );
  if (stoppedAt !== undefined && row?.due != null && row.due - clockOffset > stoppedAt)
    stoppedAt = row.due - clockOffset;
}

async function withClockStopped<T>(work: () => Promise<T>): Promise<T> {
  stoppedAt = Date.now();
  try {
    return await work();
  } finally {
    stoppedAt = undefined;
  }
}

beforeAll(async () => {
  server = await startTestServer(
    {
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
      jobs: { backoffBaseMs: 10, maxBackoffMs: 50, pollMs: 100 },
      statistics: { backfillDays: 40, trailingDays: 20 },
    },
    { nowMs: () => now().getTime() },
  );
  token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  ({ platformAccountId, adPlatformId } = await linkedGoogleAccount(server, token, 'Statistics'));
  // The campaign with the most traffic over the backfill window, so every kind of row occurs.
  const report = await platformReport(addDays(isoDate(now()), -40), isoDate(now()));
  const byCampaign = new Map<string, number>();
  for (const row of report.statistics)
    byCampaign.set(row.campaignId, (byCampaign.get(row.campaignId) ?? 0) + row.impressions);
  const busiest = [...byCampaign.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const imported = await jsonRequest(
    server,
    token,
    'POST',
    `${P}/adplatform-accounts/id/${platformAccountId}/campaigns`,
    { campaign: { adPlatformId: busiest, campaignGroup: 'Sync' } },
  );
  const job = await waitForJob(server, token, imported.json.job.id);
  campaign = { id: job.result.campaign.id, adPlatformId: busiest };
});
afterAll(() => server.close());

/** The platform's own report for a window, possibly over several 92-day calls. */
async function platformReport(from: string, to: string): Promise<DailyReport> {
  const connector = server.service.platforms.connector(1, 'GOOGLE_ADS');
  const parts: DailyReport[] = [];
  for (let start = from; start <= to; start = addDays(start, 92)) {
    const end = addDays(start, 91) < to ? addDays(start, 91) : to;
    parts.push(await connector.fetchDailyReport(adPlatformId, start, end));
  }
  return {
    statistics: parts.flatMap((p) => p.statistics),
    impressionShare: parts.flatMap((p) => p.impressionShare),
    audienceRuns: parts.flatMap((p) => p.audienceRuns),
    calls: parts.flatMap((p) => p.calls),
  };
}

interface Totals {
  rows: number;
  impressions: number;
  clicks: number;
  cost: string;
  conversions: string;
  calls: number;
  callConversions: number;
}

/** Stored totals of the campaign's ad rows in [from, to], money as exact decimal text. */
async function storedTotals(from: string, to: string): Promise<Totals> {
  const row = await server.service.db.read((r) =>
    r.one<Totals>(
      `SELECT count(*)::INT AS rows, coalesce(sum(impressions), 0)::BIGINT AS impressions, coalesce(sum(clicks), 0)::BIGINT AS clicks,
              coalesce(sum(cost), 0)::VARCHAR AS cost, coalesce(sum(conversions), 0)::VARCHAR AS conversions,
              coalesce(sum(calls), 0)::BIGINT AS calls, coalesce(sum(call_conversions), 0)::BIGINT AS "callConversions"
         FROM fact_ad_daily WHERE organization_id = 1 AND campaign_id = $1 AND day BETWEEN $2::DATE AND $3::DATE`,
      [campaign.id, from, to],
    ),
  );
  return row!;
}

/** The same totals computed from the platform's rows in JS, money summed in integer micros. */
function expectedTotals(report: DailyReport, from: string, to: string): Totals {
  const rows = report.statistics.filter(
    (r) => r.campaignId === campaign.adPlatformId && r.keywordId === null && r.date >= from && r.date <= to,
  );
  const micros = (values: number[]) => values.reduce((sum, v) => sum + BigInt(Math.round(v * 1e6)), 0n);
  const decimal = (total: bigint) => `${total / 1_000_000n}.${(total % 1_000_000n).toString().padStart(6, '0')}`;
  return {
    rows: rows.length,
    impressions: rows.reduce((s, r) => s + r.impressions, 0),
    clicks: rows.reduce((s, r) => s + r.clicks, 0),
    cost: decimal(micros(rows.map((r) => r.cost))),
    conversions: decimal(micros(rows.map((r) => r.conversions))),
    calls: rows.reduce((s, r) => s + r.calls, 0),
    callConversions: rows.reduce((s, r) => s + r.callConversions, 0),
  };
}

async function syncNow(): Promise<Record<string, any>> {
  const [job] = await queueTrailingSyncs(server.service.db, server.service.jobs, now(), 20, 1);
  expect(job).toBeDefined();
  // A fresh token: tests move the service clock by days.
  const done = await waitForJob(server, await server.token(), job!.id, undefined, 60_000);
  expect(done.status).toBe('SUCCEEDED');
  return done;
}

async function backfillJob(): Promise<Record<string, any>> {
  const list = (await server.http.get(`${P}/jobs?type=SYNC_STATISTICS`, auth)).json.jobs as Array<{
    id: number;
    input: { campaignIds?: number[] };
  }>;
  const backfill = list.find((job) => job.input.campaignIds?.includes(campaign.id));
  expect(backfill).toBeDefined();
  return waitForJob(server, token, backfill!.id, undefined, 60_000);
}

/** Every rollup table equals GROUP BY over the facts (plain SQL, test/helpers/rollups.ts), and holds rows. */
async function expectRollupsEqualFacts(): Promise<void> {
  const checks = await server.service.db.read((r) => r.all<RollupCheck>(rollupCheckSql()));
  for (const check of checks) {
    expect(check.mismatched, check.t).toBe(0);
    expect(check.rows, check.t).toBeGreaterThan(0);
  }
}

/** Row counts and exact money sums of the facts and every rollup: equal before and after means nothing changed. */
async function storedFingerprint(): Promise<unknown> {
  return server.service.db.read((r) =>
    r.all(
      ['fact_ad_daily', 'rollup_campaign_daily', 'rollup_platform_account_daily']
        .map(
          (t) =>
            `SELECT '${t}' AS t, count(*)::INTEGER AS n, sum(cost)::VARCHAR AS cost, sum(conversions)::VARCHAR AS conversions, sum(impressions)::BIGINT AS impressions FROM ${t}`,
        )
        .join(' UNION ALL ') + ' ORDER BY t',
    ),
  );
}

describe('SYNC_STATISTICS', () => {
  it('an import queues a backfill of its campaign that stores exactly what the platform reports', async () => {
    const job = await backfillJob();
    expect(job.status).toBe('SUCCEEDED');
    expect(job.result).toMatchObject({
      status: 'SYNCED',
      campaigns: 1,
      adPlatformAccountId: platformAccountId,
      campaignIds: [campaign.id],
    });
    const to = isoDate(now());
    const from = addDays(to, -40);
    expect(job.input).toMatchObject({ from, to });
    const stored = await storedTotals(from, to);
    expect(stored.rows).toBeGreaterThan(100);
    expect(stored).toEqual(expectedTotals(await platformReport(from, to), from, to));
    await expectRollupsEqualFacts();
  });

  it('keyword rows, impression share and calls land too, consistent with the ad rows', async () => {
    const counts = await server.service.db.read((r) =>
      r.one<{
        keywordImpressions: number;
        adImpressions: number;
        shareImpressions: number;
        searchImpressions: number;
        calls: number;
        callRecords: number;
        conversions: number;
        convertingRecords: number;
      }>(
        `SELECT (SELECT sum(impressions) FROM fact_keyword_daily WHERE campaign_id = $1)::BIGINT AS "keywordImpressions",
                (SELECT sum(impressions) FROM fact_ad_daily WHERE campaign_id = $1)::BIGINT AS "adImpressions",
                (SELECT sum(impressions) FROM fact_impression_share_daily WHERE campaign_id = $1)::BIGINT AS "shareImpressions",
                (SELECT sum(impressions) FROM fact_ad_daily WHERE campaign_id = $1
                    AND (day, device, network) IN (SELECT (day, device, network) FROM fact_impression_share_daily WHERE campaign_id = $1))::BIGINT AS "searchImpressions",
                (SELECT sum(calls) FROM fact_ad_daily WHERE campaign_id = $1)::BIGINT AS calls,
                (SELECT count(*) FROM call_details WHERE campaign_id = $1)::BIGINT AS "callRecords",
                (SELECT sum(call_conversions) FROM fact_ad_daily WHERE campaign_id = $1)::BIGINT AS conversions,
                (SELECT count(*) FROM call_details WHERE campaign_id = $1 AND is_conversion)::BIGINT AS "convertingRecords"`,
        [campaign.id],
      ),
    );
    // The sandbox splits each ad group cell exactly over ads and over keywords.
    expect(counts!.keywordImpressions).toBe(counts!.adImpressions);
    expect(counts!.shareImpressions).toBeGreaterThan(0);
    expect(counts!.shareImpressions).toBe(counts!.searchImpressions);
    expect(counts!.callRecords).toBe(counts!.calls);
    expect(counts!.convertingRecords).toBe(counts!.conversions);
  });

  it('running the sync twice stores the same figures once', async () => {
    const to = isoDate(now());
    const from = addDays(to, -40);
    const callIds = await server.service.db.read((r) =>
      r.all<{ id: number; ad_platform_id: string }>(
        'SELECT id, ad_platform_id FROM call_details WHERE campaign_id = $1 ORDER BY id',
        [campaign.id],
      ),
    );
    await withClockStopped(async () => {
      const first = await syncNow();
      expect(first.result.rows.adRows).toBeGreaterThan(0);
      const afterFirst = await storedTotals(from, to);
      expect(afterFirst).toEqual(expectedTotals(await platformReport(from, to), from, to));
      const second = await syncNow();
      expect(second.result.rows).toEqual(first.result.rows);
      expect(await storedTotals(from, to)).toEqual(afterFirst);
    });
    await expectRollupsEqualFacts();
    // Calls keep their ids across syncs.
    expect(
      await server.service.db.read((r) =>
        r.all('SELECT id, ad_platform_id FROM call_details WHERE campaign_id = $1 ORDER BY id', [campaign.id]),
      ),
    ).toEqual(callIds);
  });

  it('a platform outage in the middle is retried and still stores everything once', async () => {
    const to = isoDate(now());
    const from = addDays(to, -40);
    await withClockStopped(async () => {
      server.service.platforms.setFaults('*', 'GOOGLE_ADS', { failNext: 2 });
      // A retry is due a backoff later on the service's clock: the clock jumps to it, and moves
      // only then, so the last attempt fetches at the instant the check below asks about.
      const ticking = setInterval(() => void jumpToDueRetry(), 10);
      try {
        const done = await syncNow();
        expect(done.attempts).toBeGreaterThan(1);
      } finally {
        clearInterval(ticking);
        server.service.platforms.clearFaults();
      }
      // Everything once: the stored figures are the platform's at that instant, none doubled.
      expect(await storedTotals(from, to)).toEqual(expectedTotals(await platformReport(from, to), from, to));
    });
  });

  it('renames at the platform reach the stored tree and keep our ids', async () => {
    const group = await server.service.db.read((r) =>
      r.one<{ id: number; adPlatformId: string }>(
        'SELECT id, ad_platform_id AS "adPlatformId" FROM ad_groups WHERE campaign_id = $1 ORDER BY id LIMIT 1',
        [campaign.id],
      ),
    );
    await server.service.platforms.connector(1, 'GOOGLE_ADS').pushChange(adPlatformId, {
      kind: 'RENAME',
      entity: 'AD_GROUP',
      adPlatformId: group!.adPlatformId,
      name: 'Renamed at the platform',
    });
    await syncNow();
    const after = await server.service.db.read((r) =>
      r.one<{ id: number; name: string }>('SELECT id, name FROM ad_groups WHERE ad_platform_id = $1', [
        group!.adPlatformId,
      ]),
    );
    expect(after).toEqual({ id: group!.id, name: 'Renamed at the platform' });
  });

  it('after the platform restates its last days, a sync replaces them: conversions grow, traffic stays, nothing doubles', async () => {
    // Days complete in every time zone at the current clock, the last of them restated the most later.
    const to = addDays(isoDate(now()), -2);
    const recentFrom = addDays(to, -5);
    const before = await storedTotals(recentFrom, to);
    clockOffset += 6 * DAY;
    try {
      await syncNow();
      const after = await storedTotals(recentFrom, to);
      expect(after.rows).toBe(before.rows);
      expect(after.impressions).toBe(before.impressions);
      expect(after.clicks).toBe(before.clicks);
      expect(after.cost).toBe(before.cost);
      expect(Number(after.conversions)).toBeGreaterThan(Number(before.conversions));
      // And the stored figures are the platform's restated ones.
      expect(after).toEqual(expectedTotals(await platformReport(recentFrom, to), recentFrom, to));
      // The restated days' rollup rows were rewritten with them.
      await expectRollupsEqualFacts();
      const converting = await server.service.db.read((r) =>
        r.one<{ records: number; facts: number }>(
          `SELECT (SELECT count(*) FROM call_details WHERE campaign_id = $1 AND is_conversion)::BIGINT AS records,
                  (SELECT sum(call_conversions) FROM fact_ad_daily WHERE campaign_id = $1)::BIGINT AS facts`,
          [campaign.id],
        ),
      );
      expect(converting!.records).toBe(converting!.facts);
    } finally {
      clockOffset -= 6 * DAY;
    }
  });

  it('a replacement that fails while writing the rollups leaves facts and rollups as they were', async () => {
    const to = addDays(isoDate(now()), -2);
    const from = addDays(to, -2);
    const report = await platformReport(from, to);
    // Two ads of one campaign, day, device and network, each a cost a fact row holds (DECIMAL(18,6))
    // whose sum the rollup row cannot: the rollup insert fails, after the facts were replaced.
    const ads = report.statistics.filter((r) => r.campaignId === campaign.adPlatformId && r.keywordId === null);
    const cell = (r: (typeof ads)[number]) => `${r.date}|${r.device}|${r.network}`;
    const pair = ads.find((a) => ads.some((b) => b !== a && cell(b) === cell(a) && b.adId !== a.adId))!;
    expect(pair).toBeDefined();
    const huge = new Set(ads.filter((r) => cell(r) === cell(pair)).slice(0, 2));
    const restated = {
      ...report,
      statistics: report.statistics.map((r) => (huge.has(r) ? { ...r, cost: 600_000_000_000 } : r)),
    };
    const before = await storedFingerprint();
    await expect(
      server.service.db.write('all-organizations', (tx) =>
        replaceDailyReport(
          tx,
          {
            organizationId: 1,
            adPlatformAccountId: platformAccountId,
            from,
            to,
            campaignIds: [campaign.id],
            hoursFrom: from,
          },
          restated,
        ),
      ),
    ).rejects.toThrow(/out of range|overflow/i);
    expect(await storedFingerprint()).toEqual(before);
    await expectRollupsEqualFacts();
  });

  it('skips platform accounts whose figures were generated, and accounts whose access was revoked', async () => {
    const setSource = (source: string) =>
      server.service.db.write('all-organizations', (tx) =>
        tx.run('UPDATE statistics_sources SET source = $2 WHERE adplatform_account_id = $1', [
          platformAccountId,
          source,
        ]),
      );
    await setSource('GENERATED');
    try {
      expect(await queueTrailingSyncs(server.service.db, server.service.jobs, now(), 20, 1)).toEqual([]);
    } finally {
      await setSource('PLATFORM');
    }
    server.service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: [adPlatformId] });
    try {
      const [job] = await queueTrailingSyncs(server.service.db, server.service.jobs, now(), 20, 1);
      const done = await waitForJob(server, token, job!.id, undefined, 60_000);
      expect(done.status).toBe('FAILED');
      expect(await queueTrailingSyncs(server.service.db, server.service.jobs, now(), 20, 1)).toEqual([]);
    } finally {
      server.service.platforms.clearFaults();
    }
  });
});

describe('the scheduled statistics sync', () => {
  it('queues a trailing-window SYNC_STATISTICS for each platform account with imported campaigns, every statistics.syncMs', async () => {
    const scheduled = await startTestServer({
      jobs: { pollMs: 100 },
      statistics: { backfillDays: 5, trailingDays: 7, syncMs: 300 },
    });
    try {
      const own = await scheduled.token();
      const linked = await linkedGoogleAccount(scheduled, own, 'Scheduled');
      const campaign = (
        await scheduled.http.get(`${P}/adplatform-accounts/id/${linked.platformAccountId}/available-campaigns`, {
          authorization: `Bearer ${own}`,
        })
      ).json.campaigns[0];
      const imported = await jsonRequest(
        scheduled,
        own,
        'POST',
        `${P}/adplatform-accounts/id/${linked.platformAccountId}/campaigns`,
        { campaign: { adPlatformId: campaign.adPlatformId, campaignGroup: 'Timer' } },
      );
      await waitForJob(scheduled, own, imported.json.job.id);
      let trailing: Record<string, any> | undefined;
      for (let i = 0; i < 100 && !trailing; i++) {
        const jobs = (await scheduled.http.get(`${P}/jobs?type=SYNC_STATISTICS`, { authorization: `Bearer ${own}` }))
          .json.jobs as Array<Record<string, any>>;
        trailing = jobs.find((job) => job.input.campaignIds === undefined);
        if (!trailing) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(trailing).toBeDefined();
      const to = isoDate(new Date());
      expect(trailing!.input).toEqual({ adPlatformAccountId: linked.platformAccountId, from: addDays(to, -7), to });
      expect((await waitForJob(scheduled, own, trailing!.id, undefined, 60_000)).status).toBe('SUCCEEDED');
    } finally {
      await scheduled.close();
    }
  });
});
