import { describe, expect, it } from 'vitest';
import {
  AD_PLATFORM_TYPES,
  type AdPlatformType,
  type DailyStatistic,
  type PlatformConnector,
} from '../../src/platforms/connector.js';
import { SandboxPlatforms } from '../../src/platforms/sandbox/index.js';
import { caught } from '../helpers/platform-errors.js';
import { useTempDatabase } from '../helpers/temp-database.js';

const temp = useTempDatabase('adreport-sandbox-stats-');

const DAY = 86_400_000;
const NOW = new Date('2026-11-25T12:00:00Z');
const FIGURES = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversionValue',
  'calls',
  'callConversions',
  'callConversionsFractional',
] as const;
/** Money in micros, conversions in hundredths: compare sums as integers. */
const SCALE: Record<(typeof FIGURES)[number], number> = {
  impressions: 1,
  clicks: 1,
  cost: 1e6,
  conversions: 100,
  conversionValue: 100,
  calls: 1,
  callConversions: 1,
  callConversionsFractional: 100,
};
const DEVICES: Record<AdPlatformType, readonly string[]> = {
  GOOGLE_ADS: ['MOBILE', 'DESKTOP', 'TABLET', 'CONNECTED_TV', 'OTHER'],
  MICROSOFT_ADVERTISING: ['DESKTOP', 'MOBILE', 'TABLET'],
  FACEBOOK: ['UNKNOWN'],
};
const NETWORKS: Record<AdPlatformType, readonly string[]> = {
  GOOGLE_ADS: ['SEARCH', 'SEARCH_PARTNERS', 'DISPLAY'],
  MICROSOFT_ADVERTISING: ['SEARCH', 'SEARCH_PARTNERS'],
  FACEBOOK: ['SOCIAL'],
};

async function statisticsOf(
  connector: PlatformConnector,
  account: string,
  from: string,
  to: string,
): Promise<DailyStatistic[]> {
  return (await connector.fetchDailyReport(account, from, to)).statistics;
}

async function accountIds(connector: PlatformConnector): Promise<string[]> {
  const accounts =
    connector.platform === 'FACEBOOK'
      ? await connector.listDirectAccounts()
      : await connector.listAccountsUnderMaster(connector.platform === 'GOOGLE_ADS' ? '123-456-7890' : '7654321');
  return accounts.map((a) => a.adPlatformId);
}

interface Tree {
  readonly createdOn: string;
  readonly groups: Map<string, { ads: Set<string>; keywords: Set<string> }>;
}

/** Everything wrong with one row (plain checks: an expect per row and rule would take minutes). */
function rowProblems(platform: AdPlatformType, row: DailyStatistic, trees: ReadonlyMap<string, Tree>): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, rule: string) => {
    if (!ok) problems.push(rule);
  };
  const counts = [row.impressions, row.clicks, row.calls, row.callConversions];
  check(
    counts.every((n) => Number.isInteger(n) && n >= 0),
    'counts are whole and not negative',
  );
  check(row.date >= '2026-11-01' && row.date < '2026-11-25', 'complete days inside the range');
  check(row.impressions > 0, 'rows without impressions are left out');
  check(row.clicks <= row.impressions, 'clicks <= impressions');
  check(row.conversions >= 0 && row.conversions <= row.clicks, '0 <= conversions <= clicks');
  check(decimals(row.conversions) <= 2 && decimals(row.callConversionsFractional) <= 2, 'conversions in hundredths');
  check(row.cost >= 0 && decimals(row.cost) <= 6, 'cost in micros');
  check(row.conversionValue >= 0 && decimals(row.conversionValue) <= 6, 'value >= 0 with at most 6 decimals');
  check(row.clicks > 0 || row.cost === 0, 'no cost without clicks');
  check(row.conversions > 0 || row.conversionValue === 0, 'no value without conversions');
  check(row.calls <= row.clicks, 'calls <= clicks');
  check(row.network === 'SEARCH' || row.calls === 0, 'calls on search only');
  check(row.callConversions <= row.calls, 'call conversions <= calls');
  check(
    row.callConversionsFractional >= 0 && row.callConversionsFractional <= row.callConversions,
    'fractional <= call conversions',
  );
  check(
    DEVICES[platform].includes(row.device) && NETWORKS[platform].includes(row.network),
    'device and network of the platform',
  );
  if (platform === 'FACEBOOK') check(row.keywordId === null, 'no keywords on FACEBOOK');
  // Campaigns only report from the day they exist; every id is in the campaign's tree.
  const tree = trees.get(row.campaignId);
  if (tree) {
    check(row.date >= tree.createdOn, 'no figures before the campaign existed');
    const group = tree.groups.get(row.adGroupId);
    check(group !== undefined, 'ad group in the campaign');
    if (row.keywordId === null) check(row.adId !== null && (group?.ads.has(row.adId) ?? false), 'ad in the ad group');
    else
      check((group?.keywords.has(row.keywordId) ?? false) && row.adId === null, 'keyword in the ad group, adId null');
  }
  return problems;
}

function decimals(value: number): number {
  const text = String(value);
  if (text.includes('e')) return Infinity;
  return text.includes('.') ? text.split('.')[1]!.length : 0;
}

function total(rows: readonly DailyStatistic[], figure: (typeof FIGURES)[number]): number {
  return rows.reduce((sum, row) => sum + Math.round(row[figure] * SCALE[figure]), 0);
}

describe('daily statistics', () => {
  it('are the same from a second instance and from a narrower range', async () => {
    const a = new SandboxPlatforms(temp.db, { now: () => NOW }).connector(1, 'GOOGLE_ADS');
    const b = new SandboxPlatforms(temp.db, { now: () => NOW }).connector(1, 'GOOGLE_ADS');
    const account = (await accountIds(a))[0]!;
    const wide = await statisticsOf(a, account, '2026-10-01', '2026-10-10');
    expect(wide.length).toBeGreaterThan(0);
    expect(await statisticsOf(b, account, '2026-10-01', '2026-10-10')).toEqual(wide);
    expect(await statisticsOf(b, account, '2026-10-04', '2026-10-04')).toEqual(
      wide.filter((r) => r.date === '2026-10-04'),
    );
    const other = new SandboxPlatforms(temp.db, { now: () => NOW }).connector(2, 'GOOGLE_ADS');
    const theirs = await statisticsOf(other, (await accountIds(other))[0]!, '2026-10-01', '2026-10-10');
    expect(theirs).not.toEqual(wide);
  });

  it('keep every row consistent: counts nest, money has at most 6 decimals, entities belong to the account', async () => {
    const platforms = new SandboxPlatforms(temp.db, { now: () => NOW });
    for (const platform of AD_PLATFORM_TYPES) {
      const connector = platforms.connector(1, platform);
      const accounts = await accountIds(connector);
      for (const account of accounts.slice(0, 2)) {
        const rows = await statisticsOf(connector, account, '2026-11-01', '2026-11-30');
        expect(rows.length).toBeGreaterThan(100);
        const tree = new Map<string, Tree>();
        for (const campaign of await connector.listCampaigns(account)) {
          const t = await connector.fetchCampaignTree(account, campaign.adPlatformId);
          const groups = new Map(
            t.adGroups.map((g) => [
              g.adPlatformId,
              {
                ads: new Set(g.ads.map((ad) => ad.adPlatformId)),
                keywords: new Set(g.keywords.map((k) => k.adPlatformId)),
              },
            ]),
          );
          tree.set(campaign.adPlatformId, { createdOn: campaign.createdOn, groups });
        }
        const broken = rows.flatMap((row) =>
          rowProblems(platform, row, tree).map((problem) => `${problem}: ${JSON.stringify(row)}`),
        );
        expect(broken.slice(0, 5)).toEqual([]);
        // Campaigns removed since (promotions) are not listed any more; most rows are of listed campaigns.
        expect(rows.filter((r) => tree.has(r.campaignId)).length / rows.length).toBeGreaterThan(0.5);
        expect(rows.some((r) => r.clicks > 0 && r.cost > 0)).toBe(true);
      }
    }
  });

  it('split each ad group, day, device and network once over keywords and once over ads, with equal sums', async () => {
    const platforms = new SandboxPlatforms(temp.db, { now: () => NOW });
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'] as const) {
      const connector = platforms.connector(2, platform);
      for (const account of (await accountIds(connector)).slice(0, 2)) {
        const rows = await statisticsOf(connector, account, '2026-11-03', '2026-11-16');
        // Per cell: the sums of the ad rows and of the keyword rows, as integers (micros, hundredths).
        const cells = new Map<string, { ads: number[]; keywords: number[] }>();
        const keywordRowsWithAd: DailyStatistic[] = [];
        for (const row of rows) {
          const key = [row.adGroupId, row.date, row.device, row.network].join('|');
          let cell = cells.get(key);
          if (!cell) cells.set(key, (cell = { ads: FIGURES.map(() => 0), keywords: FIGURES.map(() => 0) }));
          const sums = row.keywordId === null ? cell.ads : cell.keywords;
          if (row.keywordId !== null && row.adId !== null) keywordRowsWithAd.push(row);
          FIGURES.forEach((figure, i) => (sums[i]! += Math.round(row[figure] * SCALE[figure])));
        }
        expect(keywordRowsWithAd).toEqual([]);
        expect(cells.size).toBeGreaterThan(50);
        const mismatches = [...cells].filter(
          ([, { ads, keywords }]) => ads[0] === 0 || keywords[0] === 0 || ads.some((sum, i) => sum !== keywords[i]),
        );
        expect(mismatches.slice(0, 5)).toEqual([]);
        // Calls, call conversions and conversions occur at all, so the equalities above are not all 0 = 0.
        for (const figure of FIGURES) expect(total(rows, figure)).toBeGreaterThan(0);
      }
    }
  });

  it('restate conversions as they come in, final after 14 days; traffic never changes', async () => {
    let now = new Date('2026-09-10T06:00:00Z');
    const connector = new SandboxPlatforms(temp.db, { now: () => now }).connector(3, 'GOOGLE_ADS');
    const account = (await accountIds(connector))[0]!;
    const fetchAt = async (iso: string) => {
      now = new Date(iso);
      return statisticsOf(connector, account, '2026-09-01', '2026-09-07');
    };
    const snapshots = [
      await fetchAt('2026-09-08T12:00:00Z'),
      await fetchAt('2026-09-10T12:00:00Z'),
      await fetchAt('2026-09-14T12:00:00Z'),
      await fetchAt('2026-09-22T12:00:00Z'),
      await fetchAt('2026-10-30T12:00:00Z'),
    ];
    const traffic = (rows: DailyStatistic[]) =>
      rows.map((r) => [
        r.date,
        r.adGroupId,
        r.adId,
        r.keywordId,
        r.device,
        r.network,
        r.impressions,
        r.clicks,
        r.cost,
        r.calls,
      ]);
    for (const rows of snapshots) expect(traffic(rows)).toEqual(traffic(snapshots[0]!));
    for (const figure of ['conversions', 'conversionValue', 'callConversions', 'callConversionsFractional'] as const) {
      const totals = snapshots.map((rows) => total(rows, figure));
      for (let i = 1; i < totals.length; i++) expect(totals[i]).toBeGreaterThanOrEqual(totals[i - 1]!);
    }
    const conversions = snapshots.map((rows) => total(rows, 'conversions'));
    expect(conversions[0]).toBeLessThan(conversions[4]!);
    expect(conversions[0]).toBeGreaterThan(0);
    // Every day of the range is older than 14 days at the last two clocks: nothing changes any more.
    expect(snapshots[4]).toEqual(snapshots[3]);
    // Per cell, too, reported conversions only grow.
    const byCell = (rows: DailyStatistic[]) => {
      const sums = new Map<string, number>();
      for (const row of rows)
        if (row.keywordId === null)
          sums.set(
            [row.adGroupId, row.date, row.device, row.network].join('|'),
            (sums.get([row.adGroupId, row.date, row.device, row.network].join('|')) ?? 0) +
              Math.round(row.conversions * 100),
          );
      return sums;
    };
    const early = byCell(snapshots[0]!);
    const late = byCell(snapshots[3]!);
    expect([...early].filter(([key, value]) => (late.get(key) ?? -1) < value)).toEqual([]);
  });

  it('look like advertising: Google mobile-heavy, Microsoft desktop-heavy, a Q4 peak, a long tail of campaigns', async () => {
    const platforms = new SandboxPlatforms(temp.db, { now: () => NOW });
    const byDevice = async (platform: AdPlatformType) => {
      const connector = platforms.connector(5, platform);
      const sums = new Map<string, number>();
      for (const account of await accountIds(connector)) {
        for (const row of await statisticsOf(connector, account, '2026-10-01', '2026-10-14')) {
          if (row.keywordId === null) sums.set(row.device, (sums.get(row.device) ?? 0) + row.impressions);
        }
      }
      return sums;
    };
    const google = await byDevice('GOOGLE_ADS');
    expect(google.get('MOBILE')!).toBeGreaterThan(google.get('DESKTOP')!);
    const microsoft = await byDevice('MICROSOFT_ADVERTISING');
    expect(microsoft.get('DESKTOP')!).toBeGreaterThan(microsoft.get('MOBILE')!);

    // Black Friday week against a week in August, over campaigns serving in both.
    const connector = platforms.connector(5, 'GOOGLE_ADS');
    let november = 0;
    let august = 0;
    const perCampaign: number[] = [];
    for (const account of await accountIds(connector)) {
      const nov = await statisticsOf(connector, account, '2025-11-24', '2025-11-30');
      const aug = await statisticsOf(connector, account, '2025-08-18', '2025-08-24');
      const inAugust = new Set(aug.map((r) => r.campaignId));
      const campaigns = new Set(nov.map((r) => r.campaignId).filter((id) => inAugust.has(id)));
      const sum = (rows: DailyStatistic[]) =>
        rows.filter((r) => r.keywordId === null && campaigns.has(r.campaignId)).reduce((s, r) => s + r.impressions, 0);
      november += sum(nov);
      august += sum(aug);
      for (const id of campaigns)
        perCampaign.push(
          nov.filter((r) => r.campaignId === id && r.keywordId === null).reduce((s, r) => s + r.impressions, 0),
        );
    }
    expect(november / august).toBeGreaterThan(1.15);
    // Long tail: the biggest campaign dwarfs the median one.
    perCampaign.sort((x, y) => x - y);
    expect(perCampaign[perCampaign.length - 1]!).toBeGreaterThan(4 * perCampaign[Math.floor(perCampaign.length / 2)]!);
  });

  it('report nothing for today or the future, and refuse bad ranges', async () => {
    const connector = new SandboxPlatforms(temp.db, { now: () => NOW }).connector(1, 'FACEBOOK');
    const account = (await accountIds(connector))[0]!;
    expect(await connector.fetchDailyReport(account, '2026-11-25', '2026-12-31')).toEqual({
      statistics: [],
      impressionShare: [],
      audienceRuns: [],
      calls: [],
    });
    const yesterday = await statisticsOf(connector, account, '2026-11-24', '2026-11-24');
    expect(yesterday.length).toBeGreaterThan(0);
    // A quarter is the most one call returns (92 days); longer ranges are asked for in pieces.
    expect((await statisticsOf(connector, account, '2026-08-25', '2026-11-24')).length).toBeGreaterThan(0);
    for (const [from, to] of [
      ['2026-11-02', '2026-11-01'],
      ['2026-02-30', '2026-03-01'],
      ['20261101', '2026-11-02'],
      ['2026-01-01', '2026-04-03'],
    ] as const) {
      expect((await caught(connector.fetchDailyReport(account, from, to))).code).toBe('INVALID_REQUEST');
    }
  });

  it('generate a 30-day month of the largest account', async () => {
    const connector = new SandboxPlatforms(temp.db, { now: () => NOW }).connector(6, 'GOOGLE_ADS');
    let largest = '';
    let most = 0;
    for (const account of await accountIds(connector)) {
      const count = (await connector.listCampaigns(account)).length;
      if (count > most) [largest, most] = [account, count];
    }
    const rows = await statisticsOf(connector, largest, '2026-10-01', '2026-10-30');
    expect(rows.length).toBeGreaterThan(1000);
    expect(new Set(rows.map((row) => row.date)).size).toBe(30);
  });

  it('let a clock that moves on add days without changing earlier traffic', async () => {
    let now = new Date('2026-08-01T12:00:00Z');
    const connector = new SandboxPlatforms(temp.db, { now: () => now }).connector(7, 'MICROSOFT_ADVERTISING');
    const account = (await accountIds(connector))[0]!;
    const before = await statisticsOf(connector, account, '2026-07-01', '2026-08-31');
    now = new Date(now.getTime() + 10 * DAY);
    const after = await statisticsOf(connector, account, '2026-07-01', '2026-08-31');
    const dates = (rows: DailyStatistic[]) => [...new Set(rows.map((r) => r.date))].sort();
    expect(dates(before).at(-1)).toBe('2026-07-31');
    expect(dates(after).at(-1)).toBe('2026-08-10');
    const key = (r: DailyStatistic) =>
      [r.date, r.adGroupId, r.adId, r.keywordId, r.device, r.network, r.impressions, r.clicks, r.cost].join('|');
    expect(after.filter((r) => r.date <= '2026-07-31').map(key)).toEqual(before.map(key));
  });
});
