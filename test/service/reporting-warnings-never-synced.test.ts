import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../helpers/http.js';
import { startReportingFixture, type GeneratedOrg, type ReportingFixture } from '../helpers/reporting-fixture.js';

/*
 * Issue 36 item 13: linking a FACEBOOK platform account without importing any of its campaigns
 * (so it is never synced) made every accounts report say that all of its platform accounts were
 * never synced, and dropped the report's complete day. A generated world (its platform accounts
 * synced through yesterday, generated data is final as generated), one FACEBOOK account linked
 * through the API; expected values from statistics_sources and the links, read here by SQL.
 */
const P = '/provisioning/v0';
let fx: ReportingFixture;
let org: GeneratedOrg;
/** The account the FACEBOOK platform account is linked to, and that platform account. */
let accountId: number;
let facebookId: number;

interface SyncRow {
  id: number;
  through: string | null;
}

/** The organization's platform accounts linked to the given accounts, with their synced-through day. */
const linkedSources = async (accountIds: readonly number[]) => {
  const rows = await fx.sql<SyncRow & { accountId: number }>(
    `SELECT l.account_id::INTEGER AS "accountId", p.id::INTEGER AS id, strftime(s.synced_through, '%Y-%m-%d') AS through
       FROM account_adplatform_links l
       JOIN adplatform_accounts p ON p.id = l.adplatform_account_id
       LEFT JOIN statistics_sources s ON s.adplatform_account_id = p.id
      WHERE p.organization_id = $1`,
    [org.id],
  );
  const byId = new Map(rows.filter((r) => accountIds.includes(r.accountId)).map((r) => [r.id, r] as const));
  return [...byId.values()].map(({ id, through }) => ({ id, through })).sort((a, b) => a.id - b.id);
};

const warningOf = (res: HttpResponse) =>
  ((res.json.warnings ?? []) as Array<Record<string, unknown>>).find((w) => w.code === 'incomplete_data');

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
  org = fx.orgs[0]!;
  // A new client account, as a user would add one, for the FACEBOOK platform account.
  const created = await fx.json('POST', `${P}/accounts`, org.token, {
    account: { name: 'Facebook client', languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
  });
  expect(created.status).toBe(201);
  accountId = created.json.account.id as number;
  const available = await fx.get(`${P}/adplatform-accounts/available?adPlatformType=FACEBOOK`, org.token);
  expect(available.status).toBe(200);
  const free = (available.json.adPlatformAccounts as Array<{ adPlatformId: string; linked: boolean }>).find(
    (a) => !a.linked,
  )!;
  const linked = await fx.json('POST', `${P}/accounts/id/${accountId}/adplatform-accounts`, org.token, {
    adPlatformAccount: { adPlatformType: 'FACEBOOK', adPlatformId: free.adPlatformId },
  });
  expect(linked.status).toBe(201);
  facebookId = linked.json.adPlatformAccount.id as number;
}, 300_000);
afterAll(() => fx.close());

describe('a platform account linked and never synced', () => {
  it('is the only one the accounts report calls never synced, and the complete day stays', async () => {
    const all = await fx.sql<{ id: number }>('SELECT id::INTEGER AS id FROM accounts WHERE organization_id = $1', [
      org.id,
    ]);
    const sources = await linkedSources(all.map((a) => a.id));
    const synced = sources.filter((s) => s.through !== null);
    const never = sources.filter((s) => s.through === null).map((s) => s.id);
    // The scenario: one never synced (the FACEBOOK account), the rest generated through yesterday.
    expect(never).toEqual([facebookId]);
    expect(synced.length).toBeGreaterThan(0);
    const expectedThrough = synced.map((s) => s.through!).sort()[0]!;
    expect(expectedThrough).toBe(fx.yesterday);

    const res = await fx.report('accounts', org.token);
    expect(res.status).toBe(200);
    expect(res.json.meta.freshness.completeThrough).toBe(expectedThrough);
    expect(res.headers['x-data-complete-through']).toBe(expectedThrough);
    expect(res.json.meta.freshness.platformAccounts.map((p: { id: number }) => p.id)).toEqual(sources.map((s) => s.id));
    const warning = warningOf(res)!;
    // The default range ends yesterday, on the synced accounts' complete day: only the FACEBOOK account is incomplete.
    expect(warning).toMatchObject({
      completeThrough: expectedThrough,
      platformAccountCount: 1,
      platformAccountIds: [facebookId],
      neverSyncedCount: 1,
      neverSyncedIds: [facebookId],
    });
    expect(warning.message).toContain(`1 of the ${sources.length} platform accounts of this report was never synced`);
    expect(warning.message).toContain(`id ${facebookId}`);
    expect(warning.message).not.toContain(`${sources.length} of the ${sources.length}`);
  });

  it('past the complete day, the synced ones may change and the never synced one is counted apart', async () => {
    const all = await fx.sql<{ id: number }>('SELECT id::INTEGER AS id FROM accounts WHERE organization_id = $1', [
      org.id,
    ]);
    const sources = await linkedSources(all.map((a) => a.id));
    // A range ending today: after every synced account's complete day (yesterday).
    const today = new Date().toISOString().slice(0, 10);
    const res = await fx.report('accounts', org.token, { startDate: fx.yesterday, endDate: today });
    expect(res.status).toBe(200);
    const warning = warningOf(res)!;
    expect(warning.platformAccountCount).toBe(sources.length);
    expect(warning.platformAccountIds).toEqual(sources.map((s) => s.id));
    expect(warning.neverSyncedIds).toEqual([facebookId]);
    expect(warning.message).toContain(
      `${sources.length - 1} of the ${sources.length} platform accounts of this report may still change`,
    );
    expect(warning.message).toContain(`1 of the ${sources.length} platform accounts of this report was never synced`);

    const csv = await fx.report('accounts', org.token, { startDate: fx.yesterday, endDate: today, format: 'csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers['x-data-complete-through']).toBe(fx.yesterday);
    expect(String(csv.headers['adreport-warnings']).split(', ')).toContain(
      `incomplete_data;through="${fx.yesterday}";accounts=${sources.length};never_synced=1`,
    );
  });

  it('a report without the FACEBOOK account in scope says nothing of it', async () => {
    const others = await fx.sql<{ id: number }>(
      'SELECT id::INTEGER AS id FROM accounts WHERE organization_id = $1 AND id <> $2 ORDER BY id',
      [org.id, accountId],
    );
    expect(others.length).toBeGreaterThan(0);
    const filter = `id in [${others.map((a) => a.id).join(', ')}]`;
    const res = await fx.report('accounts', org.token, { filter });
    expect(res.status).toBe(200);
    const sources = await linkedSources(others.map((a) => a.id));
    expect(sources.map((s) => s.id)).not.toContain(facebookId);
    expect(res.json.meta.freshness.platformAccounts.map((p: { id: number }) => p.id)).toEqual(sources.map((s) => s.id));
    expect(warningOf(res)).toBeUndefined();
    expect(res.headers['x-data-complete-through']).toBe(fx.yesterday);
    // And the FACEBOOK endpoint of platform accounts: only it, never synced, so no complete day.
    const facebook = await fx.report('adplatform-accounts', org.token, { filter: `id == ${facebookId}` });
    expect(facebook.json.meta.freshness.completeThrough).toBeNull();
    expect(facebook.headers['x-data-complete-through']).toBeUndefined();
    expect(warningOf(facebook)).toMatchObject({ completeThrough: null, neverSyncedIds: [facebookId] });
    expect(warningOf(facebook)!.message).toMatch(/^1 of the 1 platform accounts of this report was never synced/);
    // Another organization's reports never count it.
    const other = fx.orgs[1]!;
    const theirs = await fx.report('accounts', other.token);
    expect(theirs.json.meta.freshness.platformAccounts.map((p: { id: number }) => p.id)).not.toContain(facebookId);
    expect(warningOf(theirs)).toBeUndefined();
  });
});
