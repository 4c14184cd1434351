import { describe, expect, it } from 'vitest';
import type {
  CallRecord,
  DailyAudienceRun,
  DailyImpressionShare,
  DailyReport,
  PlatformAccount,
} from '../../src/platforms/connector.js';
import { SandboxPlatforms } from '../../src/platforms/sandbox/index.js';
import { caught } from '../helpers/platform-errors.js';
import {
  accountsOf,
  adRows,
  expectSame,
  groupBy,
  localDate,
  localHour,
  sortedEntries,
  sumBy,
  unionLength,
} from '../helpers/sandbox-report.js';
import { useTempDatabase } from '../helpers/temp-database.js';

const temp = useTempDatabase('adreport-sandbox-report-');

const NOW = new Date('2026-11-25T12:00:00Z');
const sandbox = (now: () => Date = () => NOW) => new SandboxPlatforms(temp.db, { now });
const isCount = (n: number) => Number.isInteger(n) && n >= 0;

/** The country an account's callers ring from, from the market code its catalog name ends with. */
const countryOfName = (account: PlatformAccount) => {
  const code = account.name.slice(-2);
  return code === 'UK' ? 'GB' : code;
};

describe('GOOGLE_ADS impression share', () => {
  it('has one row per campaign, day and device on SEARCH, with exactly the ad rows impressions and counts that nest', async () => {
    const platforms = sandbox();
    const google = platforms.connector(1, 'GOOGLE_ADS');
    for (const account of (await accountsOf(google)).slice(0, 2)) {
      const report = await google.fetchDailyReport(account.adPlatformId, '2026-10-01', '2026-10-10');
      const key = (r: { campaignId: string; date: string; device: string; network: string }) =>
        [r.campaignId, r.date, r.device, r.network].join('|');
      const search = adRows(report.statistics).filter((row) => row.network === 'SEARCH');
      expect(report.impressionShare.length).toBeGreaterThan(20);
      expect(new Set(report.impressionShare.map(key)).size).toBe(report.impressionShare.length);
      expect(sortedEntries(sumBy(report.impressionShare, key, (r) => r.impressions))).toEqual(
        sortedEntries(sumBy(search, key, (r) => r.impressions)),
      );
      const broken = report.impressionShare.filter(
        (r) =>
          r.network !== 'SEARCH' ||
          ![
            r.impressions,
            r.eligibleImpressions,
            r.budgetLostImpressions,
            r.rankLostImpressions,
            r.topImpressions,
            r.absoluteTopImpressions,
          ].every(isCount) ||
          r.impressions === 0 ||
          r.impressions > r.eligibleImpressions ||
          r.budgetLostImpressions + r.rankLostImpressions !== r.eligibleImpressions - r.impressions ||
          r.topImpressions > r.impressions ||
          r.absoluteTopImpressions > r.topImpressions,
      );
      expect(broken.slice(0, 3)).toEqual([]);
    }
  });

  it('spreads campaigns from under 10 % to nearly all, lost to budget or to rank; only GOOGLE_ADS reports it', async () => {
    const platforms = sandbox();
    const shares: number[] = [];
    let budgetMostly = 0;
    let rankMostly = 0;
    for (const organization of [1, 2]) {
      const google = platforms.connector(organization, 'GOOGLE_ADS');
      for (const account of await accountsOf(google)) {
        const rows = (await google.fetchDailyReport(account.adPlatformId, '2026-10-05', '2026-10-07')).impressionShare;
        for (const campaign of groupBy(rows, (r) => r.campaignId).values()) {
          const sum = (figure: keyof DailyImpressionShare) => campaign.reduce((s, r) => s + (r[figure] as number), 0);
          // Sums over sums, as the reporting aggregates shares.
          shares.push(sum('impressions') / sum('eligibleImpressions'));
          if (sum('budgetLostImpressions') > sum('rankLostImpressions')) budgetMostly++;
          else rankMostly++;
        }
      }
    }
    shares.sort((a, b) => a - b);
    expect(shares.length).toBeGreaterThan(30);
    expect(shares.filter((s) => s < 0.1).length).toBeGreaterThan(0);
    expect(shares.filter((s) => s > 0.9).length).toBeGreaterThan(0);
    const median = shares[Math.floor(shares.length / 2)]!;
    expect(median).toBeGreaterThan(0.3);
    expect(median).toBeLessThan(0.9);
    expect(budgetMostly).toBeGreaterThan(0);
    expect(rankMostly).toBeGreaterThan(budgetMostly / 2);
    for (const platform of ['MICROSOFT_ADVERTISING', 'FACEBOOK'] as const) {
      const connector = platforms.connector(1, platform);
      const report = await connector.fetchDailyReport(
        (await accountsOf(connector))[0]!.adPlatformId,
        '2026-10-05',
        '2026-10-07',
      );
      expect(report.statistics.length).toBeGreaterThan(0);
      expect(report.impressionShare).toEqual([]);
    }
  });
});

describe('FACEBOOK audience runs', () => {
  it('lie inside the audience, reach at most an ad-day impressions, and overlap from day to day', async () => {
    const platforms = sandbox();
    const facebook = platforms.connector(1, 'FACEBOOK');
    for (const account of await accountsOf(facebook)) {
      const size = await platforms.audienceSize(1, account.adPlatformId);
      expect(size).toBeGreaterThanOrEqual(200_000);
      expect(size).toBeLessThanOrEqual(50_000_000);
      // An ISO week, Monday to Sunday.
      const report = await facebook.fetchDailyReport(account.adPlatformId, '2026-11-02', '2026-11-08');
      expect(report.audienceRuns.length).toBeGreaterThan(0);
      expect(
        report.audienceRuns.filter(
          (r) => !Number.isInteger(r.from) || !Number.isInteger(r.to) || r.from < 0 || r.from >= r.to || r.to > size,
        ),
      ).toEqual([]);
      // Per ad and day: one run, or two where it wraps, not overlapping, at most the ad's impressions.
      const adDay = (r: { date: string; adId: string | null }) => `${r.date}|${r.adId}`;
      const impressions = sumBy(report.statistics, adDay, (r) => r.impressions);
      const runs = groupBy(report.audienceRuns, adDay);
      expect([...runs.keys()].sort()).toEqual(
        [...impressions]
          .filter(([, n]) => n > 0)
          .map(([k]) => k)
          .sort(),
      );
      const broken = [...runs].filter(([k, rs]) => {
        const length = rs.reduce((s, r) => s + r.to - r.from, 0);
        return rs.length > 2 || unionLength(rs) !== length || length < 1 || length > (impressions.get(k) ?? 0);
      });
      expect(broken.slice(0, 3)).toEqual([]);
      // People return from day to day: the week's reach lies strictly between the largest day's and the sum of the days'.
      const days = [...groupBy(report.audienceRuns, (r) => r.date).values()].map(unionLength);
      expect(days.length).toBe(7);
      const week = unionLength(report.audienceRuns);
      expect(week).toBeGreaterThan(Math.max(...days));
      expect(week).toBeLessThan(days.reduce((a, b) => a + b, 0));
    }
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'] as const) {
      const connector = platforms.connector(1, platform);
      expect(
        (await connector.fetchDailyReport((await accountsOf(connector))[0]!.adPlatformId, '2026-11-02', '2026-11-03'))
          .audienceRuns,
      ).toEqual([]);
    }
  });

  it('campaigns share people: an account reaches fewer than its campaigns together, and a month saturates', async () => {
    const facebook = sandbox().connector(2, 'FACEBOOK');
    let overlapping = 0;
    for (const account of await accountsOf(facebook)) {
      const runs = (await facebook.fetchDailyReport(account.adPlatformId, '2026-10-01', '2026-10-31')).audienceRuns;
      const campaigns = [...groupBy(runs, (r) => r.campaignId).values()].map(unionLength);
      const whole = unionLength(runs);
      if (whole < campaigns.reduce((a, b) => a + b, 0)) overlapping++;
      // Thirty days reach far fewer than thirty single days.
      const days = [...groupBy(runs, (r) => r.date).values()].map(unionLength);
      expect(whole).toBeLessThan(0.6 * days.reduce((a, b) => a + b, 0));
    }
    expect(overlapping).toBeGreaterThan(0);
  });

  it('trueReach counts the same people as the union of the runs: a day, an ISO week, a month, an odd range, selections, beyond 92 days', async () => {
    const platforms = sandbox();
    const facebook = platforms.connector(3, 'FACEBOOK');
    const account = (await accountsOf(facebook))[0]!.adPlatformId;
    const runsOf = async (from: string, to: string) =>
      (await facebook.fetchDailyReport(account, from, to)).audienceRuns;
    for (const [from, to] of [
      ['2026-11-10', '2026-11-10'],
      ['2026-11-02', '2026-11-08'],
      ['2026-10-01', '2026-10-31'],
      ['2026-09-17', '2026-10-05'],
    ] as const) {
      const runs = await runsOf(from, to);
      expect(unionLength(runs)).toBeGreaterThan(0);
      expect(await platforms.trueReach(3, account, {}, from, to)).toBe(unionLength(runs));
    }
    const month = await runsOf('2026-10-01', '2026-10-31');
    const [first, second] = [...groupBy(month, (r) => r.campaignId).keys()];
    const group = month.find((r) => r.campaignId === second)!.adGroupId;
    const ad = month.filter((r) => r.campaignId === first).at(-1)!.adId;
    const selections: Array<[Parameters<SandboxPlatforms['trueReach']>[2], (r: DailyAudienceRun) => boolean]> = [
      [{ campaignIds: [first!] }, (r) => r.campaignId === first],
      [{ adGroupIds: [group] }, (r) => r.adGroupId === group],
      [{ adIds: [ad] }, (r) => r.adId === ad],
      [{ adGroupIds: [group], adIds: [ad] }, (r) => r.adGroupId === group || r.adId === ad],
      [{ campaignIds: [], adIds: [] }, () => true],
    ];
    for (const [selection, selected] of selections) {
      expect(await platforms.trueReach(3, account, selection, '2026-10-01', '2026-10-31')).toBe(
        unionLength(month.filter(selected)),
      );
    }
    // Longer than one fetch may be: the oracle loops on; and only complete days count.
    const summer = [...(await runsOf('2026-06-01', '2026-08-31')), ...(await runsOf('2026-09-01', '2026-10-31'))];
    expect(await platforms.trueReach(3, account, {}, '2026-06-01', '2026-10-31')).toBe(unionLength(summer));
    expect(await platforms.trueReach(3, account, {}, '2026-11-20', '2027-01-31')).toBe(
      unionLength(await runsOf('2026-11-20', '2026-11-24')),
    );
    // Another organization's account is not there; a search account has no audience.
    expect((await caught(platforms.trueReach(4, account, {}, '2026-10-01', '2026-10-31'))).code).toBe('NOT_FOUND');
    const google = (await accountsOf(platforms.connector(3, 'GOOGLE_ADS')))[0]!.adPlatformId;
    expect((await caught(platforms.trueReach(3, google, {}, '2026-10-01', '2026-10-31'))).code).toBe('NOT_FOUND');
  });
});

describe('call records', () => {
  it('are one per call counted, exactly callConversions of them converting, on the statistic day in the account time zone', async () => {
    const platforms = sandbox();
    const all: CallRecord[] = [];
    const hours: number[] = [];
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'] as const) {
      const connector = platforms.connector(1, platform);
      const ids: string[] = [];
      for (const account of (await accountsOf(connector)).slice(0, 2)) {
        const report = await connector.fetchDailyReport(account.adPlatformId, '2026-10-01', '2026-10-14');
        const campaignDay = (r: { campaignId: string; date: string }) => `${r.campaignId}|${r.date}`;
        const ads = adRows(report.statistics);
        expect(sortedEntries(sumBy(report.calls, campaignDay, () => 1))).toEqual(
          sortedEntries(
            sumBy(
              ads.filter((r) => r.calls > 0),
              campaignDay,
              (r) => r.calls,
            ),
          ),
        );
        const converting = sortedEntries(sumBy(report.calls, campaignDay, (c) => (c.isConversion ? 1 : 0))).filter(
          ([, n]) => n > 0,
        );
        expect(converting).toEqual(
          sortedEntries(sumBy(ads, campaignDay, (r) => r.callConversions)).filter(([, n]) => n > 0),
        );
        const broken = report.calls.filter(
          (c) =>
            !/^\d+$/.test(c.callId) ||
            !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(c.startTime) ||
            localDate(c.startTime, account.timeZone) !== c.date ||
            !isCount(c.durationSeconds) ||
            (c.status === 'MISSED') !== (c.durationSeconds === 0) ||
            (c.isConversion && (c.status !== 'RECEIVED' || c.durationSeconds < 60)) ||
            !['CALL_ASSET', 'CALL_ONLY_AD', 'WEBSITE_CALL'].includes(c.callType) ||
            c.callerCountry !== countryOfName(account) ||
            !/^\d{1,4}$/.test(c.callerAreaCode),
        );
        expect(broken.slice(0, 3)).toEqual([]);
        ids.push(...report.calls.map((c) => c.callId));
        hours.push(...report.calls.map((c) => localHour(c.startTime, account.timeZone)));
        all.push(...report.calls);
      }
      // Unique per organization and platform.
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(all.length).toBeGreaterThan(100);
    const share = (test: (c: CallRecord) => boolean) => all.filter(test).length / all.length;
    expect(share((c) => c.status === 'MISSED')).toBeGreaterThan(0.08);
    expect(share((c) => c.status === 'MISSED')).toBeLessThan(0.22);
    expect(share((c) => c.isConversion)).toBeGreaterThan(0.1);
    expect(share((c) => c.callType === 'CALL_ASSET')).toBeGreaterThan(0.6);
    expect(share((c) => c.callType === 'WEBSITE_CALL')).toBeGreaterThan(0);
    // Business hours on the account's clocks.
    expect(hours.filter((hour) => hour >= 8 && hour < 19).length / hours.length).toBeGreaterThan(0.7);
    // Long tail: a few long conversations, most calls short.
    const durations = all
      .filter((c) => c.status === 'RECEIVED')
      .map((c) => c.durationSeconds)
      .sort((a, b) => a - b);
    expect(durations.at(-1)!).toBeGreaterThan(5 * durations[Math.floor(durations.length / 2)]!);
    const facebook = platforms.connector(1, 'FACEBOOK');
    expect(
      (await facebook.fetchDailyReport((await accountsOf(facebook))[0]!.adPlatformId, '2026-10-01', '2026-10-14'))
        .calls,
    ).toEqual([]);
  });

  it('ring from GB for a UK account', async () => {
    const platforms = sandbox();
    for (let organization = 1; organization <= 20; organization++) {
      const google = platforms.connector(organization, 'GOOGLE_ADS');
      const uk = (await accountsOf(google)).find((a) => a.name.endsWith(' UK'));
      if (!uk) continue;
      const calls = (await google.fetchDailyReport(uk.adPlatformId, '2026-10-01', '2026-10-10')).calls;
      if (calls.length === 0) continue;
      expect(new Set(calls.map((c) => c.callerCountry))).toEqual(new Set(['GB']));
      return;
    }
    expect.unreachable('no UK account with calls in 20 organizations');
  });
});

describe('the daily report', () => {
  const ranges = { wide: ['2026-10-01', '2026-10-07'], narrow: ['2026-10-03', '2026-10-04'] } as const;
  const within = (report: DailyReport, from: string, to: string): DailyReport => {
    const inside = (r: { date: string }) => r.date >= from && r.date <= to;
    return {
      statistics: report.statistics.filter(inside),
      impressionShare: report.impressionShare.filter(inside),
      audienceRuns: report.audienceRuns.filter(inside),
      calls: report.calls.filter(inside),
    };
  };

  it('is the same from a second instance and, day for day, from a narrower range: all four arrays', async () => {
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const) {
      const a = sandbox().connector(8, platform);
      const b = sandbox().connector(8, platform);
      const account = (await accountsOf(a))[0]!.adPlatformId;
      const wide = await a.fetchDailyReport(account, ...ranges.wide);
      expectSame(await b.fetchDailyReport(account, ...ranges.wide), wide);
      expectSame(await b.fetchDailyReport(account, ...ranges.narrow), within(wide, ...ranges.narrow));
      const filled = {
        GOOGLE_ADS: ['impressionShare', 'calls'],
        MICROSOFT_ADVERTISING: ['calls'],
        FACEBOOK: ['audienceRuns'],
      } as const;
      for (const part of filled[platform]) expect(wide[part].length).toBeGreaterThan(0);
    }
  });

  it('restates conversions and converting calls only upwards; days older than 14 days never change', async () => {
    let now = new Date('2026-10-02T12:00:00Z');
    const platforms = sandbox(() => now);
    const google = platforms.connector(9, 'GOOGLE_ADS');
    const facebook = platforms.connector(9, 'FACEBOOK');
    const account = (await accountsOf(google))[0]!.adPlatformId;
    const social = (await accountsOf(facebook))[0]!.adPlatformId;
    const at = async (iso: string) => {
      now = new Date(iso);
      return {
        google: await google.fetchDailyReport(account, '2026-09-10', '2026-09-30'),
        facebook: await facebook.fetchDailyReport(social, '2026-09-10', '2026-09-30'),
      };
    };
    const early = await at('2026-10-02T12:00:00Z');
    const middle = await at('2026-10-08T12:00:00Z');
    const late = await at('2026-10-30T12:00:00Z');
    const byDate = (report: DailyReport, value: (r: { conversions: number }) => number) =>
      sumBy(
        adRows(report.statistics),
        (r) => r.date,
        (r) => Math.round(100 * value(r)),
      );
    const flagged = (report: DailyReport) => new Set(report.calls.filter((c) => c.isConversion).map((c) => c.callId));
    const snapshots = [early, middle, late];
    for (let i = 1; i < snapshots.length; i++) {
      const [before, after] = [snapshots[i - 1]!.google, snapshots[i]!.google];
      for (const [date, conversions] of byDate(before, (r) => r.conversions))
        expect(conversions).toBeLessThanOrEqual(byDate(after, (r) => r.conversions).get(date)!);
      // The same calls; a converting call stays converting.
      expectSame(
        after.calls.map((c) => c.callId),
        before.calls.map((c) => c.callId),
      );
      const later = flagged(after);
      expect([...flagged(before)].filter((id) => !later.has(id))).toEqual([]);
      // Traffic never changes: impressions, impression share, audience runs.
      expectSame(after.impressionShare, before.impressionShare);
      expectSame(snapshots[i]!.facebook.audienceRuns, snapshots[i - 1]!.facebook.audienceRuns);
    }
    // The last days were still incomplete at the first clock.
    const lastDays = (report: DailyReport) => within(report, '2026-09-25', '2026-09-30');
    expect(byDate(lastDays(early.google), (r) => r.conversions)).not.toEqual(
      byDate(lastDays(late.google), (r) => r.conversions),
    );
    expect(flagged(early.google).size).toBeLessThan(flagged(late.google).size);
    // More than 14 days old at the first clock: the whole report is final.
    expectSame(within(early.google, '2026-09-10', '2026-09-16'), within(late.google, '2026-09-10', '2026-09-16'));
    expectSame(within(early.facebook, '2026-09-10', '2026-09-16'), within(late.facebook, '2026-09-10', '2026-09-16'));
  });

  it('looks like search: weekdays above weekends, mobile first on Google search', async () => {
    const google = sandbox().connector(5, 'GOOGLE_ADS');
    const byWeekday = new Array<number>(7).fill(0);
    const days = new Array<number>(7).fill(0);
    const devices = new Map<string, number>();
    // Ten weeks of one account.
    for (const account of (await accountsOf(google)).slice(0, 1)) {
      const rows = adRows(
        (await google.fetchDailyReport(account.adPlatformId, '2026-06-01', '2026-08-09')).statistics,
      ).filter((r) => r.network === 'SEARCH');
      for (const row of rows) {
        byWeekday[new Date(row.date).getUTCDay()]! += row.impressions;
        devices.set(row.device, (devices.get(row.device) ?? 0) + row.impressions);
      }
      for (const date of new Set(rows.map((r) => r.date))) days[new Date(date).getUTCDay()]! += 1;
    }
    const perDay = (weekdays: number[]) =>
      weekdays.reduce((s, d) => s + byWeekday[d]!, 0) / weekdays.reduce((s, d) => s + days[d]!, 0);
    expect(perDay([2, 3, 4])).toBeGreaterThan(1.1 * perDay([0, 6]));
    const [first] = [...devices].sort(([, a], [, b]) => b - a);
    expect(first![0]).toBe('MOBILE');
  });

  it('has a long tail: in big accounts the top fifth of the campaigns spend well over half of the money', async () => {
    const google = sandbox().connector(2, 'GOOGLE_ADS');
    const shares: number[] = [];
    for (const account of await accountsOf(google)) {
      if ((await google.listCampaigns(account.adPlatformId)).length < 11) continue;
      const costs = sumBy(
        adRows((await google.fetchDailyReport(account.adPlatformId, '2026-10-05', '2026-10-11')).statistics),
        (r) => r.campaignId,
        (r) => r.cost,
      );
      const sorted = [...costs.values()].sort((a, b) => b - a);
      shares.push(
        sorted.slice(0, Math.ceil(sorted.length / 5)).reduce((a, b) => a + b, 0) / sorted.reduce((a, b) => a + b, 0),
      );
    }
    expect(shares.length).toBeGreaterThanOrEqual(3);
    shares.sort((a, b) => a - b);
    expect(shares[Math.floor(shares.length / 2)]!).toBeGreaterThan(0.55);
  });
});
