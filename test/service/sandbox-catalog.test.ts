import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AD_PLATFORM_TYPES,
  PlatformError,
  type AdPlatformType,
  type PlatformAccount,
  type PlatformConnector,
} from '../../src/platforms/connector.js';
import { SandboxPlatforms } from '../../src/platforms/sandbox/index.js';
import { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';

const dirs: string[] = [];
const open: Database[] = [];
afterAll(async () => {
  for (const db of open) await db.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function openDb(file?: string): Promise<{ db: Database; file: string }> {
  let target = file;
  if (!target) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-sandbox-'));
    dirs.push(dir);
    target = path.join(dir, 'sandbox.duckdb');
  }
  const db = await Database.open(target, { readConnections: 2, maxQueued: 64 });
  await migrate(db);
  open.push(db);
  return { db, file: target };
}

async function closeDb(db: Database): Promise<void> {
  open.splice(open.indexOf(db), 1);
  await db.close();
}

const MASTER: Record<Exclude<AdPlatformType, 'FACEBOOK'>, string> = {
  GOOGLE_ADS: '123-456-7890',
  MICROSOFT_ADVERTISING: '4711815',
};
const SEARCH_PLATFORMS = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'] as const;
const DAY = 86_400_000;

async function accountsOf(connector: PlatformConnector): Promise<PlatformAccount[]> {
  if (connector.platform === 'FACEBOOK') return connector.listDirectAccounts();
  return connector.listAccountsUnderMaster(MASTER[connector.platform]);
}

async function expectPlatformError(promise: Promise<unknown>, code: PlatformError['code']): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  expect((error as PlatformError).code).toBe(code);
  return error as PlatformError;
}

/** Everything one organization sees on one platform, as plain data. */
async function snapshot(
  platforms: SandboxPlatforms,
  organizationId: number,
  platform: AdPlatformType,
): Promise<unknown> {
  const connector = platforms.connector(organizationId, platform);
  const accounts = await accountsOf(connector);
  const master = platform === 'FACEBOOK' ? null : await connector.getMasterAccount(MASTER[platform]);
  const perAccount = [];
  for (const account of accounts.slice(0, 2)) {
    const campaigns = await connector.listCampaigns(account.adPlatformId);
    const trees = await Promise.all(
      campaigns.slice(0, 3).map((c) => connector.fetchCampaignTree(account.adPlatformId, c.adPlatformId)),
    );
    perAccount.push({ campaigns, trees });
  }
  return { master, accounts, perAccount };
}

describe('determinism', () => {
  it('gives the same masters, accounts, campaigns and trees in a second instance and after reopening the database', async () => {
    const { db, file } = await openDb();
    const now = () => new Date('2026-06-15T10:00:00Z');
    const first = await Promise.all(AD_PLATFORM_TYPES.map((p) => snapshot(new SandboxPlatforms(db, { now }), 7, p)));
    const second = await Promise.all(AD_PLATFORM_TYPES.map((p) => snapshot(new SandboxPlatforms(db, { now }), 7, p)));
    expect(second).toEqual(first);
    await closeDb(db);
    const reopened = await openDb(file);
    // A fresh instance that never listed a master still resolves the accounts directly.
    const fresh = new SandboxPlatforms(reopened.db, { now });
    const [google] = first as Array<{ accounts: PlatformAccount[]; perAccount: Array<{ campaigns: unknown }> }>;
    expect(await fresh.connector(7, 'GOOGLE_ADS').listCampaigns(google!.accounts[1]!.adPlatformId)).toEqual(
      google!.perAccount[1]!.campaigns,
    );
    const third = await Promise.all(
      AD_PLATFORM_TYPES.map((p) => snapshot(new SandboxPlatforms(reopened.db, { now }), 7, p)),
    );
    expect(third).toEqual(first);
  });

  it('gives different organizations different accounts, also under the same master id', async () => {
    const { db } = await openDb();
    const platforms = new SandboxPlatforms(db, { now: () => new Date('2026-06-15T10:00:00Z') });
    for (const platform of AD_PLATFORM_TYPES) {
      const mine = (await accountsOf(platforms.connector(1, platform))).map((a) => a.adPlatformId);
      const theirs = (await accountsOf(platforms.connector(2, platform))).map((a) => a.adPlatformId);
      expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
    }
  });
});

describe('catalog', () => {
  let db: Database;
  let platforms: SandboxPlatforms;
  beforeAll(async () => {
    ({ db } = await openDb());
    platforms = new SandboxPlatforms(db, { now: () => new Date('2026-11-20T09:00:00Z') });
  });

  it('names masters and refuses malformed ones; FACEBOOK has none', async () => {
    for (const platform of SEARCH_PLATFORMS) {
      const connector = platforms.connector(1, platform);
      const master = await connector.getMasterAccount(MASTER[platform]);
      expect(master.adPlatformId).toBe(MASTER[platform]);
      expect(master.name).toMatch(/^[A-Z][\w ]+ (MCC|Reseller)$/);
      await expectPlatformError(connector.getMasterAccount('not-a-master'), 'NOT_FOUND');
      await expectPlatformError(connector.listAccountsUnderMaster('12'), 'NOT_FOUND');
    }
    const facebook = platforms.connector(1, 'FACEBOOK');
    await expectPlatformError(facebook.getMasterAccount('123-456-7890'), 'INVALID_REQUEST');
    await expectPlatformError(facebook.listAccountsUnderMaster('1234567'), 'INVALID_REQUEST');
    expect(await platforms.connector(1, 'GOOGLE_ADS').listDirectAccounts()).toEqual([]);
    expect(await platforms.connector(1, 'MICROSOFT_ADVERTISING').listDirectAccounts()).toEqual([]);
  });

  it('lists 3-8 accounts per master and 3-5 FACEBOOK accounts, with a matching currency and time zone', async () => {
    const zones = new Set(Intl.supportedValuesOf('timeZone'));
    for (const platform of AD_PLATFORM_TYPES) {
      const accounts = await accountsOf(platforms.connector(1, platform));
      const [min, max] = platform === 'FACEBOOK' ? [3, 5] : [3, 8];
      expect(accounts.length).toBeGreaterThanOrEqual(min);
      expect(accounts.length).toBeLessThanOrEqual(max);
      for (const account of accounts) {
        expect(account.name).toMatch(/^[A-Z][\w ]+ [A-Z]{2}$/);
        expect(account.currency).toMatch(/^[A-Z]{3}$/);
        expect(zones.has(account.timeZone)).toBe(true);
        if (account.currency === 'EUR') expect(account.timeZone).toMatch(/^Europe\//);
        if (account.currency === 'JPY') expect(account.timeZone).toBe('Asia/Tokyo');
      }
    }
  });

  it('writes every id in its platform format, unique across one organization', async () => {
    const formats: Record<
      AdPlatformType,
      { account: RegExp; campaign: RegExp; adGroup: RegExp; ad: RegExp; keyword: RegExp }
    > = {
      GOOGLE_ADS: {
        account: /^\d{3}-\d{3}-\d{4}$/,
        campaign: /^\d{11}$/,
        adGroup: /^\d{11}$/,
        ad: /^\d{12}$/,
        keyword: /^\d{12}$/,
      },
      MICROSOFT_ADVERTISING: {
        account: /^\d{9}$/,
        campaign: /^\d{10}$/,
        adGroup: /^\d{10}$/,
        ad: /^\d{11}$/,
        keyword: /^\d{11}$/,
      },
      FACEBOOK: {
        account: /^act_\d{15,16}$/,
        campaign: /^\d{17,18}$/,
        adGroup: /^\d{17,18}$/,
        ad: /^\d{17,18}$/,
        keyword: /^$/,
      },
    };
    for (const platform of AD_PLATFORM_TYPES) {
      const connector = platforms.connector(3, platform);
      const format = formats[platform];
      const seen: string[] = [];
      const accounts = [...(await accountsOf(connector))];
      if (platform !== 'FACEBOOK')
        accounts.push(
          ...(await connector.listAccountsUnderMaster(platform === 'GOOGLE_ADS' ? '555-000-1234' : '987654321')),
        );
      for (const account of accounts) {
        expect(account.adPlatformId).toMatch(format.account);
        expect(connector.isWellFormedAccountId(account.adPlatformId)).toBe(true);
        seen.push(account.adPlatformId);
        for (const campaign of await connector.listCampaigns(account.adPlatformId)) {
          expect(campaign.adPlatformId).toMatch(format.campaign);
          seen.push(campaign.adPlatformId);
          const tree = await connector.fetchCampaignTree(account.adPlatformId, campaign.adPlatformId);
          for (const group of tree.adGroups) {
            expect(group.adPlatformId).toMatch(format.adGroup);
            seen.push(
              group.adPlatformId,
              ...group.ads.map((ad) => ad.adPlatformId),
              ...group.keywords.map((k) => k.adPlatformId),
            );
            for (const ad of group.ads) expect(ad.adPlatformId).toMatch(format.ad);
            for (const keyword of group.keywords) expect(keyword.adPlatformId).toMatch(format.keyword);
          }
        }
      }
      expect(seen.length).toBeGreaterThan(200);
      expect(new Set(seen).size).toBe(seen.length);
    }
  });

  it('checks account id formats without a call', () => {
    const google = platforms.connector(1, 'GOOGLE_ADS');
    const microsoft = platforms.connector(1, 'MICROSOFT_ADVERTISING');
    const facebook = platforms.connector(1, 'FACEBOOK');
    expect(google.isWellFormedAccountId('123-456-7890')).toBe(true);
    expect(google.isWellFormedAccountId('1234567890')).toBe(false);
    expect(google.isWellFormedAccountId('123-456-789')).toBe(false);
    expect(microsoft.isWellFormedAccountId('123456789')).toBe(true);
    expect(microsoft.isWellFormedAccountId('12345678')).toBe(false);
    expect(microsoft.isWellFormedAccountId('12345678a')).toBe(false);
    expect(facebook.isWellFormedAccountId('act_1234567890')).toBe(true);
    expect(facebook.isWellFormedAccountId('act_123456789012345678')).toBe(false);
    expect(facebook.isWellFormedAccountId('1234567890123456')).toBe(false);
  });

  it('answers NOT_FOUND for malformed ids and for well-formed ids issued to another organization', async () => {
    for (const platform of AD_PLATFORM_TYPES) {
      const mine = platforms.connector(1, platform);
      const theirs = platforms.connector(2, platform);
      const foreign = (await accountsOf(theirs))[0]!.adPlatformId;
      const foreignCampaign = (await theirs.listCampaigns(foreign))[0]!.adPlatformId;
      const malformed = platform === 'FACEBOOK' ? '12345' : 'act_123';
      for (const accountId of [foreign, malformed]) {
        await expectPlatformError(mine.listCampaigns(accountId), 'NOT_FOUND');
        await expectPlatformError(mine.fetchCampaignTree(accountId, foreignCampaign), 'NOT_FOUND');
        await expectPlatformError(mine.fetchDailyReport(accountId, '2026-10-01', '2026-10-02'), 'NOT_FOUND');
        await expectPlatformError(
          mine.pushChange(accountId, {
            kind: 'SET_STATUS',
            entity: 'CAMPAIGN',
            adPlatformId: foreignCampaign,
            status: 'PAUSED',
          }),
          'NOT_FOUND',
        );
      }
      // A campaign of another account of the same organization is not in this account.
      const [first, second] = await accountsOf(mine);
      const otherCampaign = (await mine.listCampaigns(second!.adPlatformId))[0]!.adPlatformId;
      await expectPlatformError(mine.fetchCampaignTree(first!.adPlatformId, otherCampaign), 'NOT_FOUND');
      await expectPlatformError(mine.fetchCampaignTree(first!.adPlatformId, '42'), 'NOT_FOUND');
    }
    // Made-up ids in the right format.
    await expectPlatformError(platforms.connector(1, 'GOOGLE_ADS').listCampaigns('000-000-0001'), 'NOT_FOUND');
    await expectPlatformError(platforms.connector(1, 'MICROSOFT_ADVERTISING').listCampaigns('999999999'), 'NOT_FOUND');
    await expectPlatformError(platforms.connector(1, 'FACEBOOK').listCampaigns('act_1234567890123456'), 'NOT_FOUND');
  });

  it('lists 4-25 campaigns per account, mostly enabled, none created after now', async () => {
    const statuses: string[] = [];
    for (const platform of AD_PLATFORM_TYPES) {
      for (const organizationId of [1, 2, 3]) {
        const connector = platforms.connector(organizationId, platform);
        for (const account of await accountsOf(connector)) {
          const campaigns = await connector.listCampaigns(account.adPlatformId);
          expect(campaigns.length).toBeGreaterThanOrEqual(4);
          expect(campaigns.length).toBeLessThanOrEqual(25);
          for (const campaign of campaigns) {
            expect(campaign.createdOn <= '2026-11-20').toBe(true);
            expect(campaign.name.length).toBeGreaterThan(0);
            statuses.push(campaign.status);
          }
        }
      }
    }
    const enabled = statuses.filter((s) => s === 'ENABLED').length;
    expect(enabled / statuses.length).toBeGreaterThan(0.6);
    expect(statuses).toContain('PAUSED');
  });

  it('builds search trees with keywords and text ads', async () => {
    for (const platform of SEARCH_PLATFORMS) {
      const connector = platforms.connector(1, platform);
      const account = (await accountsOf(connector))[0]!;
      for (const campaign of (await connector.listCampaigns(account.adPlatformId)).slice(0, 4)) {
        const tree = await connector.fetchCampaignTree(account.adPlatformId, campaign.adPlatformId);
        expect(tree.campaign).toEqual(campaign);
        expect(tree.adGroups.length).toBeGreaterThanOrEqual(2);
        expect(tree.adGroups.length).toBeLessThanOrEqual(8);
        for (const group of tree.adGroups) {
          expect(group.keywords.length).toBeGreaterThanOrEqual(5);
          expect(group.keywords.length).toBeLessThanOrEqual(25);
          expect(new Set(group.keywords.map((k) => k.text)).size).toBe(group.keywords.length);
          for (const keyword of group.keywords) {
            expect(keyword.text).toMatch(/^[a-z0-9' -]+$/);
            expect(['EXACT', 'PHRASE', 'BROAD']).toContain(keyword.matchType);
          }
          expect(group.ads.length).toBeGreaterThanOrEqual(2);
          expect(group.ads.length).toBeLessThanOrEqual(4);
          for (const ad of group.ads) {
            expect(['RESPONSIVE_SEARCH_AD', 'EXPANDED_TEXT_AD']).toContain(ad.adType);
            expect(ad.headline.length).toBeGreaterThan(0);
            expect(ad.description.length).toBeGreaterThan(0);
            expect(ad.finalUrl).toMatch(/^https:\/\/www\.[a-z0-9-]+\.example\//);
          }
        }
      }
    }
  });

  it('builds FACEBOOK trees as ad sets with image, video and carousel ads and no keywords', async () => {
    const connector = platforms.connector(1, 'FACEBOOK');
    const types = new Set<string>();
    for (const account of await connector.listDirectAccounts()) {
      for (const campaign of (await connector.listCampaigns(account.adPlatformId)).slice(0, 3)) {
        const tree = await connector.fetchCampaignTree(account.adPlatformId, campaign.adPlatformId);
        expect(tree.adGroups.length).toBeGreaterThanOrEqual(2);
        expect(tree.adGroups.length).toBeLessThanOrEqual(8);
        for (const group of tree.adGroups) {
          expect(group.keywords).toEqual([]);
          expect(group.ads.length).toBeGreaterThanOrEqual(1);
          expect(group.ads.length).toBeLessThanOrEqual(6);
          for (const ad of group.ads) {
            types.add(ad.adType);
            expect(ad.imageUrls?.length).toBeGreaterThan(0);
            for (const url of ad.imageUrls ?? []) expect(url).toMatch(/^https:\/\//);
            expect(ad.specificFields?.callToAction).toMatch(/^[A-Z_]+$/);
            expect(ad.specificFields?.pageId).toMatch(/^\d{15}$/);
          }
        }
      }
    }
    expect([...types].sort()).toEqual(['CAROUSEL', 'IMAGE', 'VIDEO']);
  });
});

describe('campaigns over time', () => {
  it('shows campaigns created later once the clock reaches them, and not before', async () => {
    const { db } = await openDb();
    let now = new Date('2026-03-01T12:00:00Z');
    const platforms = new SandboxPlatforms(db, { now: () => now });
    for (const platform of AD_PLATFORM_TYPES) {
      const connector = platforms.connector(4, platform);
      const account = (await accountsOf(connector))[0]!;
      now = new Date('2026-03-01T12:00:00Z');
      const before = await connector.listCampaigns(account.adPlatformId);
      now = new Date(now.getTime() + 200 * DAY);
      const after = await connector.listCampaigns(account.adPlatformId);
      const appeared = after.filter((c) => !before.some((b) => b.adPlatformId === c.adPlatformId));
      expect(appeared.length).toBeGreaterThan(0);
      for (const campaign of appeared) {
        expect(campaign.createdOn > '2026-03-01').toBe(true);
        expect(campaign.createdOn <= '2026-09-17').toBe(true);
      }
      // Not reachable before it exists, reachable after.
      const late = appeared[0]!;
      expect((await connector.fetchCampaignTree(account.adPlatformId, late.adPlatformId)).campaign.adPlatformId).toBe(
        late.adPlatformId,
      );
      now = new Date('2026-03-01T12:00:00Z');
      await expectPlatformError(connector.fetchCampaignTree(account.adPlatformId, late.adPlatformId), 'NOT_FOUND');
    }
  });
});

describe('campaign lifecycle', () => {
  it('lists a finished promotion as REMOVED for a while, then only fetchCampaignTree knows it; it serves no more', async () => {
    const { db } = await openDb();
    let now = new Date('2025-01-01T12:00:00Z');
    const connector = new SandboxPlatforms(db, { now: () => now }).connector(10, 'GOOGLE_ADS');
    const account = (await accountsOf(connector))[0]!.adPlatformId;
    let removed: { id: string; since: Date } | undefined;
    for (let step = 0; step < 40 && !removed; step++) {
      now = new Date(Date.UTC(2025, 0, 1) + step * 10 * DAY + 12 * 3_600_000);
      const hit = (await connector.listCampaigns(account)).find((c) => c.status === 'REMOVED');
      if (hit) removed = { id: hit.adPlatformId, since: now };
    }
    expect(removed).toBeDefined();
    const since = removed!.since.toISOString().slice(0, 10);
    const { statistics: stats } = await connector.fetchDailyReport(
      account,
      since,
      new Date(removed!.since.getTime() + 20 * DAY).toISOString().slice(0, 10),
    );
    now = new Date(removed!.since.getTime() + 45 * DAY);
    expect(stats.filter((r) => r.campaignId === removed!.id)).toEqual([]);
    expect((await connector.listCampaigns(account)).map((c) => c.adPlatformId)).not.toContain(removed!.id);
    expect((await connector.fetchCampaignTree(account, removed!.id)).campaign.status).toBe('REMOVED');
  });
});

describe('createAccount', () => {
  it('refuses unknown currencies, time zones, empty names and FACEBOOK', async () => {
    const { db } = await openDb();
    const connector = new SandboxPlatforms(db, { now: () => new Date('2026-06-01T00:00:00Z') }).connector(
      1,
      'GOOGLE_ADS',
    );
    const master = MASTER.GOOGLE_ADS;
    const good = { name: 'Contoso Bikes NL', currency: 'EUR', timeZone: 'Europe/Amsterdam' };
    for (const currency of ['EURO', 'eur', 'ABC', 'XXX', '']) {
      await expectPlatformError(
        connector.createAccount(master, { ...good, currency }, `c-${currency}`),
        'INVALID_REQUEST',
      );
    }
    for (const timeZone of ['Mars/Olympus_Mons', 'europe/berlin', '+01:00', '']) {
      await expectPlatformError(
        connector.createAccount(master, { ...good, timeZone }, `t-${timeZone}`),
        'INVALID_REQUEST',
      );
    }
    await expectPlatformError(connector.createAccount(master, { ...good, name: '  ' }, 'n'), 'INVALID_REQUEST');
    await expectPlatformError(connector.createAccount('bad', good, 'm'), 'NOT_FOUND');
    const facebook = new SandboxPlatforms(db, { now: () => new Date() }).connector(1, 'FACEBOOK');
    await expectPlatformError(facebook.createAccount('123-456-7890', good, 'f'), 'INVALID_REQUEST');
    const rows = await db.read((r) => r.all('SELECT * FROM sandbox_created_accounts'));
    expect(rows).toEqual([]);
  });

  it('creates once per request token, lists the account under its master, and keeps it across a reopened database', async () => {
    const { db, file } = await openDb();
    let now = new Date('2026-06-01T08:00:00Z');
    const platforms = new SandboxPlatforms(db, { now: () => now });
    for (const platform of SEARCH_PLATFORMS) {
      const connector = platforms.connector(5, platform);
      const master = MASTER[platform];
      const input = { name: 'Fabrikam Garden CH', currency: 'CHF', timeZone: 'Europe/Zurich' };
      const created = await connector.createAccount(master, input, 'job-17');
      expect(created).toMatchObject(input);
      expect(connector.isWellFormedAccountId(created.adPlatformId)).toBe(true);
      // The same token returns the same account, even when asked concurrently.
      const again = await Promise.all([
        connector.createAccount(master, input, 'job-17'),
        connector.createAccount(master, input, 'job-17'),
      ]);
      expect(again).toEqual([created, created]);
      const other = await connector.createAccount(
        master,
        { ...input, name: 'Fabrikam Garden AT', currency: 'EUR', timeZone: 'Europe/Vienna' },
        'job-18',
      );
      expect(other.adPlatformId).not.toBe(created.adPlatformId);
      const listed = await connector.listAccountsUnderMaster(master);
      expect(listed.filter((a) => a.adPlatformId === created.adPlatformId)).toEqual([created]);
      expect(listed.map((a) => a.adPlatformId)).toContain(other.adPlatformId);
      // Not under another master, not visible to another organization.
      const elsewhere = await connector.listAccountsUnderMaster(
        platform === 'GOOGLE_ADS' ? '999-999-9999' : '99999999',
      );
      expect(elsewhere.map((a) => a.adPlatformId)).not.toContain(created.adPlatformId);
      await expectPlatformError(platforms.connector(6, platform).listCampaigns(created.adPlatformId), 'NOT_FOUND');
      // A new account starts empty; its campaigns appear over the following weeks.
      expect(await connector.listCampaigns(created.adPlatformId)).toEqual([]);
      now = new Date('2026-09-01T08:00:00Z');
      const campaigns = await connector.listCampaigns(created.adPlatformId);
      expect(campaigns.length).toBeGreaterThan(0);
      for (const campaign of campaigns) expect(campaign.createdOn > '2026-06-01').toBe(true);
      now = new Date('2026-06-01T08:00:00Z');
    }
    const count = await db.read((r) =>
      r.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM sandbox_created_accounts'),
    );
    expect(count?.n).toBe(4);

    const before = await platforms.connector(5, 'GOOGLE_ADS').listAccountsUnderMaster(MASTER.GOOGLE_ADS);
    await closeDb(db);
    const reopened = await openDb(file);
    const fresh = new SandboxPlatforms(reopened.db, { now: () => now }).connector(5, 'GOOGLE_ADS');
    expect(await fresh.listAccountsUnderMaster(MASTER.GOOGLE_ADS)).toEqual(before);
    const input = { name: 'Fabrikam Garden CH', currency: 'CHF', timeZone: 'Europe/Zurich' };
    expect(await fresh.createAccount(MASTER.GOOGLE_ADS, input, 'job-17')).toEqual(
      before.find((a) => a.name === input.name),
    );
  });
});

describe('pushChange', () => {
  it('lays pushed statuses and names over the catalog, last change winning, across instances', async () => {
    const { db } = await openDb();
    const now = () => new Date('2026-07-01T12:00:00Z');
    const platforms = new SandboxPlatforms(db, { now });
    const connector = platforms.connector(8, 'GOOGLE_ADS');
    const account = (await accountsOf(connector))[0]!.adPlatformId;
    const [campaign] = await connector.listCampaigns(account);
    const tree = await connector.fetchCampaignTree(account, campaign!.adPlatformId);
    const group = tree.adGroups[0]!;
    const ad = group.ads[0]!;
    const keyword = group.keywords[0]!;

    await connector.pushChange(account, {
      kind: 'SET_STATUS',
      entity: 'CAMPAIGN',
      adPlatformId: campaign!.adPlatformId,
      status: 'PAUSED',
    });
    await connector.pushChange(account, {
      kind: 'RENAME',
      entity: 'CAMPAIGN',
      adPlatformId: campaign!.adPlatformId,
      name: 'Renamed once',
    });
    await connector.pushChange(account, {
      kind: 'RENAME',
      entity: 'CAMPAIGN',
      adPlatformId: campaign!.adPlatformId,
      name: 'Renamed twice',
    });
    await connector.pushChange(account, {
      kind: 'RENAME',
      entity: 'AD_GROUP',
      adPlatformId: group.adPlatformId,
      name: 'Group renamed',
    });
    await connector.pushChange(account, {
      kind: 'SET_STATUS',
      entity: 'AD',
      adPlatformId: ad.adPlatformId,
      status: 'REMOVED',
    });
    await connector.pushChange(account, {
      kind: 'SET_STATUS',
      entity: 'KEYWORD',
      adPlatformId: keyword.adPlatformId,
      status: 'PAUSED',
    });

    const fresh = new SandboxPlatforms(db, { now }).connector(8, 'GOOGLE_ADS');
    const listed = (await fresh.listCampaigns(account)).find((c) => c.adPlatformId === campaign!.adPlatformId);
    expect(listed).toEqual({ ...campaign, status: 'PAUSED', name: 'Renamed twice' });
    const changed = await fresh.fetchCampaignTree(account, campaign!.adPlatformId);
    expect(changed.campaign).toEqual(listed);
    expect(changed.adGroups[0]).toMatchObject({ name: 'Group renamed', status: group.status });
    expect(changed.adGroups[0]!.ads[0]).toEqual({ ...ad, status: 'REMOVED' });
    expect(changed.adGroups[0]!.keywords[0]).toEqual({ ...keyword, status: 'PAUSED' });
    // Everything not touched is as generated.
    expect(changed.adGroups.slice(1)).toEqual(tree.adGroups.slice(1));
    expect(changed.adGroups[0]!.ads.slice(1)).toEqual(group.ads.slice(1));
    // Another organization's view of its own catalog is untouched by these changes.
    const rows = await db.read((r) =>
      r.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM sandbox_changes WHERE organization_id = 8'),
    );
    expect(rows[0]?.n).toBe(6);
  });

  it('refuses entities not in the account, empty names and FACEBOOK keywords', async () => {
    const { db } = await openDb();
    const platforms = new SandboxPlatforms(db, { now: () => new Date('2026-07-01T12:00:00Z') });
    const connector = platforms.connector(9, 'MICROSOFT_ADVERTISING');
    const [first, second] = await accountsOf(connector);
    const campaign = (await connector.listCampaigns(second!.adPlatformId))[0]!;
    const tree = await connector.fetchCampaignTree(second!.adPlatformId, campaign.adPlatformId);
    const foreignAd = tree.adGroups[0]!.ads[0]!.adPlatformId;
    await expectPlatformError(
      connector.pushChange(first!.adPlatformId, {
        kind: 'SET_STATUS',
        entity: 'CAMPAIGN',
        adPlatformId: campaign.adPlatformId,
        status: 'PAUSED',
      }),
      'NOT_FOUND',
    );
    await expectPlatformError(
      connector.pushChange(first!.adPlatformId, { kind: 'RENAME', entity: 'AD', adPlatformId: foreignAd, name: 'x' }),
      'NOT_FOUND',
    );
    // An ad id passed as a keyword is not a keyword.
    await expectPlatformError(
      connector.pushChange(second!.adPlatformId, {
        kind: 'SET_STATUS',
        entity: 'KEYWORD',
        adPlatformId: foreignAd,
        status: 'PAUSED',
      }),
      'NOT_FOUND',
    );
    await expectPlatformError(
      connector.pushChange(second!.adPlatformId, {
        kind: 'RENAME',
        entity: 'CAMPAIGN',
        adPlatformId: campaign.adPlatformId,
        name: ' ',
      }),
      'INVALID_REQUEST',
    );
    const facebook = platforms.connector(9, 'FACEBOOK');
    const act = (await facebook.listDirectAccounts())[0]!.adPlatformId;
    await expectPlatformError(
      facebook.pushChange(act, {
        kind: 'SET_STATUS',
        entity: 'KEYWORD',
        adPlatformId: '123456789012345678',
        status: 'PAUSED',
      }),
      'INVALID_REQUEST',
    );
    const rows = await db.read((r) => r.all('SELECT * FROM sandbox_changes'));
    expect(rows).toEqual([]);
  });
});
