import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../helpers/http.js';
import { startReportingFixture, type GeneratedOrg, type ReportingFixture } from '../helpers/reporting-fixture.js';

/*
 * Issue 36 item 16: a filter on a label name no entity of the organization has answered 200 with
 * no rows and no hint. Now it carries `unknown_labels` naming them. Labels are set through the
 * API; which names exist is read back by SQL, per organization and level, to compute the
 * expected warning independently.
 */
const P = '/provisioning/v0';
let fx: ReportingFixture;
let mine: GeneratedOrg;
let theirs: GeneratedOrg;
let accountId: number;

const unknownOf = (res: HttpResponse) =>
  ((res.json.warnings ?? []) as Array<Record<string, unknown>>).find((w) => w.code === 'unknown_labels');

/** The label names an organization's accounts or campaigns have, by SQL. */
async function namesOf(orgId: number, level: 'accounts' | 'campaigns'): Promise<Set<string>> {
  const [table, key] = level === 'accounts' ? ['account_labels', 'account_id'] : ['campaign_labels', 'campaign_id'];
  const rows = await fx.sql<{ name: string }>(
    `SELECT DISTINCT lb.name FROM ${table} lb JOIN ${level} o ON o.id = lb.${key} WHERE o.organization_id = $1`,
    [orgId],
  );
  return new Set(rows.map((r) => r.name));
}

const filtered = (level: 'accounts' | 'campaigns', filter: string, as = mine, format?: string) =>
  fx.report(level, as.token, { filter, statistics: 'clicks', ...(format ? { format } : {}) });

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
  [mine, theirs] = fx.orgs as [GeneratedOrg, GeneratedOrg];
  const [account] = await fx.sql<{ id: number }>(
    'SELECT id::INTEGER AS id FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1',
    [mine.id],
  );
  accountId = account!.id;
  const [campaign] = await fx.sql<{ id: number }>(
    'SELECT id::INTEGER AS id FROM campaigns WHERE organization_id = $1 ORDER BY id LIMIT 1',
    [mine.id],
  );
  const [otherAccount] = await fx.sql<{ id: number }>(
    'SELECT id::INTEGER AS id FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1',
    [theirs.id],
  );
  const put = async (path: string, token: string, labels: Record<string, string>) => {
    const res = await fx.json('PATCH', path, token, { labels }, 'application/merge-patch+json');
    expect(res.status, res.text).toBe(200);
  };
  await put(`${P}/accounts/id/${accountId}/labels`, mine.token, { ClientGroup: 'EMEA' });
  await put(`${P}/campaigns/id/${campaign!.id}/labels`, mine.token, { tier: 'gold' });
  await put(`${P}/accounts/id/${otherAccount!.id}/labels`, theirs.token, { theirsOnly: 'x' });
}, 300_000);
afterAll(() => fx.close());

describe('unknown_labels', () => {
  it('a misspelt label: 200, no rows, and a warning naming it', async () => {
    const res = await filtered('accounts', "labels.ClientGruop == 'EMEA'");
    expect(res.status).toBe(200);
    expect(res.json.accounts).toEqual([]);
    expect((await namesOf(mine.id, 'accounts')).has('ClientGruop')).toBe(false);
    const warning = unknownOf(res)!;
    expect(warning.labels).toEqual(['ClientGruop']);
    expect(warning.message).toContain('No account of this organization has a label named ClientGruop');
  });

  it('a label spelt in another case: the warning says how it is spelt', async () => {
    const res = await filtered('accounts', "labels.clientgroup == 'EMEA'");
    expect(res.status).toBe(200);
    expect(unknownOf(res)!.labels).toEqual(['clientgroup']);
    expect(unknownOf(res)!.message).toContain('Did you mean labels.ClientGroup (not labels.clientgroup)?');
  });

  it('a label that exists: rows and no warning', async () => {
    const res = await filtered('accounts', "labels.ClientGroup == 'EMEA'");
    expect(res.status).toBe(200);
    expect(res.json.accounts.map((a: { id: number }) => a.id)).toEqual([accountId]);
    expect(unknownOf(res)).toBeUndefined();
  });

  it('each level has its own labels: an account label is unknown to campaigns', async () => {
    const campaignNames = await namesOf(mine.id, 'campaigns');
    const filter = "labels.tier == 'gold' || labels.ClientGroup == 'EMEA'";
    const res = await filtered('campaigns', filter);
    expect(res.status).toBe(200);
    const expected = ['tier', 'ClientGroup'].filter((n) => !campaignNames.has(n));
    expect(expected).toEqual(['ClientGroup']);
    expect(unknownOf(res)!.labels).toEqual(expected);
    expect(unknownOf(res)!.message).toContain('No campaign of this organization');
  });

  it("another organization's labels do not count; several unknown names are all named", async () => {
    const filter = "labels.theirsOnly == 'x' || labels.ClientGroup == 'EMEA' || labels.nope != 'y'";
    const res = await filtered('accounts', filter);
    expect(res.status).toBe(200);
    const names = await namesOf(mine.id, 'accounts');
    const expected = ['theirsOnly', 'ClientGroup', 'nope'].filter((n) => !names.has(n));
    expect(unknownOf(res)!.labels).toEqual(expected);
    // The other organization has it: no warning there.
    const there = await filtered('accounts', "labels.theirsOnly == 'x'", theirs);
    expect(there.status).toBe(200);
    expect(unknownOf(there)).toBeUndefined();
  });

  it('exports say it in Adreport-Warnings', async () => {
    const res = await filtered('accounts', "labels.nope == 'x'", mine, 'csv');
    expect(res.status).toBe(200);
    expect(String(res.headers['adreport-warnings']).split(', ')).toContain('unknown_labels;labels="nope"');
  });

  it('a label set after the warning ends it at once (the names are kept only while no write came)', async () => {
    const filter = "labels.lateComer == 'yes'";
    expect(unknownOf(await filtered('accounts', filter))!.labels).toEqual(['lateComer']);
    expect(unknownOf(await filtered('accounts', filter))!.labels).toEqual(['lateComer']);
    const res = await fx.json(
      'PATCH',
      `${P}/accounts/id/${accountId}/labels`,
      mine.token,
      { labels: { lateComer: 'yes' } },
      'application/merge-patch+json',
    );
    expect(res.status, res.text).toBe(200);
    expect((await namesOf(mine.id, 'accounts')).has('lateComer')).toBe(true);
    expect(unknownOf(await filtered('accounts', filter))).toBeUndefined();
  });

  it('a filter without labels has no such warning', async () => {
    const res = await filtered('accounts', 'statistics.clicks >= 0');
    expect(res.status).toBe(200);
    expect(unknownOf(res)).toBeUndefined();
  });
});
