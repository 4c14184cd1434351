import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchAll,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * Issue 19, items 4 and 5: every name a row shows is a filter and sort field (adPlatformAccountType
 * as well as the old adPlatformType), `accountId` selects the entities whose platform account is
 * linked to an account, and DayOfWeek buckets come MONDAY..SUNDAY.
 */

let fx: ReportingFixture;
let org: number;
let token: string;

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'wide-scale6-21d' });
  org = fx.orgs[0]!.id;
  token = fx.orgs[0]!.token;
});
afterAll(async () => {
  await fx?.close();
});

/** The lower levels and their special endpoints, with the SQL of their entities' platform account. */
const ENDPOINTS = [
  {
    path: 'adplatform-accounts',
    plural: 'adPlatformAccounts',
    entities: 'SELECT id, id AS pa FROM adplatform_accounts WHERE organization_id = $1',
  },
  {
    path: 'adplatform-accounts/facebook',
    plural: 'adPlatformAccounts',
    entities:
      "SELECT id, id AS pa FROM adplatform_accounts WHERE organization_id = $1 AND ad_platform_type = 'FACEBOOK'",
  },
  {
    path: 'adplatform-accounts/google-ads',
    plural: 'adPlatformAccounts',
    entities:
      "SELECT id, id AS pa FROM adplatform_accounts WHERE organization_id = $1 AND ad_platform_type = 'GOOGLE_ADS'",
  },
  {
    path: 'campaigns',
    plural: 'campaigns',
    entities: 'SELECT id, adplatform_account_id AS pa FROM campaigns WHERE organization_id = $1',
  },
  {
    path: 'campaigns/facebook',
    plural: 'campaigns',
    entities:
      "SELECT id, adplatform_account_id AS pa FROM campaigns WHERE organization_id = $1 AND ad_platform_type = 'FACEBOOK'",
  },
  {
    path: 'adgroups',
    plural: 'adGroups',
    entities:
      'SELECT g.id, c.adplatform_account_id AS pa FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id WHERE g.organization_id = $1',
  },
  {
    path: 'keywords',
    plural: 'keywords',
    entities:
      'SELECT k.id, c.adplatform_account_id AS pa FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id WHERE k.organization_id = $1',
  },
  {
    path: 'ads',
    plural: 'ads',
    entities:
      'SELECT a.id, c.adplatform_account_id AS pa FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id WHERE a.organization_id = $1',
  },
  {
    path: 'ads/facebook',
    plural: 'ads',
    entities: `SELECT a.id, c.adplatform_account_id AS pa FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                WHERE a.organization_id = $1 AND c.ad_platform_type = 'FACEBOOK'`,
  },
] as const;

const ids = async (path: string, plural: string, query: QueryInput) =>
  (await fetchAll(fx, path, token, { statistics: 'clicks', ...query }, plural)).rows.map((r) => r.id as number);
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

/** Row keys that are plain values (not statistics, segments, formulas or embeds). */
const plainKeys = (row: Record<string, unknown>) =>
  Object.keys(row).filter(
    (k) => !['statistics', 'segments', 'formulas', 'labels', 'customFields', 'images', 'specificFields'].includes(k),
  );

describe('every name a row shows filters and sorts', () => {
  for (const endpoint of [
    'accounts',
    'adplatform-accounts',
    'campaigns',
    'adgroups',
    'keywords',
    'ads',
    'campaigns/facebook',
    'adplatform-accounts/google-ads',
  ] as const) {
    it(`/${endpoint}: filter key == <a row's value> keeps exactly the rows with that value; sort by key orders them`, async () => {
      const plural = {
        accounts: 'accounts',
        'adplatform-accounts': 'adPlatformAccounts',
        campaigns: 'campaigns',
        adgroups: 'adGroups',
        keywords: 'keywords',
        ads: 'ads',
      }[endpoint.split('/')[0]!]!;
      const all = (await fetchAll(fx, endpoint, token, { statistics: 'clicks' }, plural)).rows;
      expect(all.length, endpoint).toBeGreaterThan(1);
      const sample = all[all.length - 1]!;
      for (const key of plainKeys(sample)) {
        const value = sample[key];
        const literal = typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "\\'")}'`;
        const res = await fx.report(endpoint, token, {
          statistics: 'clicks',
          filter: `${key} == ${literal}`,
          limit: 10_000,
        });
        expect(res.status, `${endpoint} filter ${key}: ${res.text.slice(0, 300)}`).toBe(200);
        const expected = all.filter((r) => r[key] === value).map((r) => r.id);
        expect(
          res.json[plural].map((r: { id: number }) => r.id),
          `${endpoint} filter ${key}`,
        ).toEqual(expected);
        for (const direction of ['', '-']) {
          const sortedRes = await fx.report(endpoint, token, {
            statistics: 'clicks',
            sort: `${direction}${key}`,
            limit: 10_000,
          });
          expect(sortedRes.status, `${endpoint} sort ${direction}${key}: ${sortedRes.text.slice(0, 300)}`).toBe(200);
          const values = sortedRes.json[plural].map((r: Record<string, unknown>) => r[key]);
          const expectedOrder = [...values].sort((a, b) =>
            a === b ? 0 : (a as string | number) < (b as string | number) ? -1 : 1,
          );
          if (direction === '-') expectedOrder.reverse();
          expect(values, `${endpoint} sort ${direction}${key}`).toEqual(expectedOrder);
        }
      }
    });
  }

  it('adPlatformAccountType and the old adPlatformType mean the same, ADWORDS and BING_ADS included', async () => {
    for (const [path, plural] of [
      ['campaigns', 'campaigns'],
      ['adgroups', 'adGroups'],
      ['keywords', 'keywords'],
      ['ads', 'ads'],
    ] as const) {
      const rows = (await fetchAll(fx, path, token, { statistics: 'clicks' }, plural)).rows;
      const google = rows.filter((r) => r.adPlatformAccountType === 'GOOGLE_ADS').map((r) => r.id);
      expect(google.length, path).toBeGreaterThan(0);
      expect(await ids(path, plural, { filter: "adPlatformAccountType == 'GOOGLE_ADS'" }), path).toEqual(google);
      expect(await ids(path, plural, { filter: "adPlatformAccountType in ['ADWORDS']" }), path).toEqual(google);
      expect(await ids(path, plural, { filter: "adPlatformType == 'ADWORDS'" }), path).toEqual(google);
      const notGoogle = rows.filter((r) => r.adPlatformAccountType !== 'GOOGLE_ADS').map((r) => r.id);
      expect(await ids(path, plural, { filter: "adPlatformAccountType != 'ADWORDS'" }), path).toEqual(notGoogle);
    }
  });

  it('campaignLabel.value on /accounts/campaign-labels/name/{name}', async () => {
    const path = 'accounts/campaign-labels/name/campaignGroup';
    const rows = (await fetchAll(fx, path, token, { statistics: 'clicks' }, 'accounts')).rows;
    expect(rows.length).toBeGreaterThan(1);
    const value = rows[rows.length - 1]!.campaignLabel.value as string;
    const filtered = (
      await fetchAll(
        fx,
        path,
        token,
        { statistics: 'clicks', filter: `campaignLabel.value == '${value.replaceAll("'", "\\'")}'` },
        'accounts',
      )
    ).rows;
    expect(filtered.map((r) => `${r.id} ${r.campaignLabel.value}`)).toEqual(
      rows.filter((r) => r.campaignLabel.value === value).map((r) => `${r.id} ${r.campaignLabel.value}`),
    );
    const descending = (
      await fetchAll(fx, path, token, { statistics: 'clicks', sort: '-campaignLabel.value' }, 'accounts')
    ).rows.map((r) => r.campaignLabel.value as string);
    expect(descending).toEqual([...descending].sort().reverse());
    const plain = await fx.report('accounts', token, { filter: "campaignLabel.value == 'x'" });
    expect(plain.status).toBe(400);
  });

  it('/fields lists adPlatformAccountType and accountId where they apply', async () => {
    const { endpoints } = (await fx.get('/reporting/v0/fields', token)).json as {
      endpoints: Array<{ path: string; filterable?: string[]; sortable?: string[] }>;
    };
    const byPath = new Map(endpoints.map((e) => [e.path.replace('/reporting/v0/', ''), e]));
    for (const path of ['campaigns', 'adgroups', 'keywords', 'ads', 'campaigns/facebook', 'ads/facebook']) {
      expect(byPath.get(path)?.filterable, path).toContain('adPlatformAccountType');
      expect(byPath.get(path)?.sortable, path).toContain('adPlatformAccountType');
    }
    for (const e of ENDPOINTS) {
      expect(byPath.get(e.path)?.filterable, e.path).toContain('accountId');
      expect(byPath.get(e.path)?.sortable, e.path).not.toContain('accountId');
    }
    expect(byPath.get('accounts')?.filterable).not.toContain('accountId');
  });
});

describe('accountId: entities whose platform account is linked to the account', () => {
  /** Expected ids by plain SQL over the links, as they are now. */
  async function linkedTo(entities: string, accountIds: number[] | 'none'): Promise<number[]> {
    const rows = await fx.sql<{ id: number }>(
      accountIds === 'none'
        ? `SELECT e.id FROM (${entities}) e WHERE NOT EXISTS (SELECT 1 FROM account_adplatform_links l WHERE l.adplatform_account_id = e.pa) ORDER BY e.id`
        : `SELECT e.id FROM (${entities}) e WHERE EXISTS (SELECT 1 FROM account_adplatform_links l WHERE l.adplatform_account_id = e.pa AND list_contains($2::BIGINT[], l.account_id)) ORDER BY e.id`,
      accountIds === 'none' ? [org] : [org, accountIds.map(String)],
    );
    return rows.map((r) => Number(r.id));
  }

  it('matches the links for every lower level and its special endpoints, a platform account linked to two accounts in both', async () => {
    const accounts = (
      await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id', [org])
    ).map((r) => Number(r.id));
    expect(accounts.length).toBeGreaterThan(1);
    const [first, second] = accounts as [number, number];
    // One platform account of the first account is linked to the second one as well (supplement 3 allows it).
    const shared = (
      await fx.sql<{ pa: number }>(
        'SELECT min(adplatform_account_id) AS pa FROM account_adplatform_links WHERE account_id = $1',
        [first],
      )
    )[0]!.pa;
    await fx.write(
      "INSERT INTO account_adplatform_links (account_id, adplatform_account_id, status) VALUES ($1, $2, 'READ_ONLY')",
      [second, shared],
    );
    try {
      for (const endpoint of ENDPOINTS) {
        const all = await ids(endpoint.path, endpoint.plural, {});
        for (const account of [first, second]) {
          const expected = await linkedTo(endpoint.entities, [account]);
          expect(
            await ids(endpoint.path, endpoint.plural, { filter: `accountId == ${account}` }),
            `${endpoint.path} == ${account}`,
          ).toEqual(expected);
          expect(
            await ids(endpoint.path, endpoint.plural, { filter: `${account} == accountId` }),
            `${endpoint.path} reversed`,
          ).toEqual(expected);
          const notLinked = all.filter((id) => !expected.includes(id));
          expect(
            await ids(endpoint.path, endpoint.plural, { filter: `accountId != ${account}` }),
            `${endpoint.path} != ${account}`,
          ).toEqual(notLinked);
          expect(
            await ids(endpoint.path, endpoint.plural, { filter: `!(accountId == ${account})` }),
            `${endpoint.path} not`,
          ).toEqual(notLinked);
        }
        const both = await linkedTo(endpoint.entities, [first, second]);
        expect(
          await ids(endpoint.path, endpoint.plural, { filter: `accountId in [${first}, ${second}]` }),
          `${endpoint.path} in`,
        ).toEqual(both);
        expect(
          await ids(endpoint.path, endpoint.plural, { filter: `accountId == ${first} || accountId == ${second}` }),
          `${endpoint.path} or`,
        ).toEqual(both);
        const onFirst = await linkedTo(endpoint.entities, [first]);
        const onSecond = new Set(await linkedTo(endpoint.entities, [second]));
        expect(
          await ids(endpoint.path, endpoint.plural, { filter: `accountId == ${first} && accountId == ${second}` }),
          `${endpoint.path} and`,
        ).toEqual(onFirst.filter((id) => onSecond.has(id)));
      }
    } finally {
      await fx.write('DELETE FROM account_adplatform_links WHERE account_id = $1 AND adplatform_account_id = $2', [
        second,
        shared,
      ]);
    }
  });

  it('accountId == null: entities of platform accounts linked to no account; in [..., null] adds them', async () => {
    const [link] = await fx.sql<{ account_id: number; pa: number; status: string }>(
      `SELECT l.account_id, l.adplatform_account_id AS pa, l.status FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id
         JOIN adplatform_accounts p ON p.id = l.adplatform_account_id
        WHERE a.organization_id = $1 AND p.ad_platform_type = 'GOOGLE_ADS' ORDER BY l.adplatform_account_id DESC LIMIT 1`,
      [org],
    );
    // Unlinking through the API would also remove the platform account's facts; only the link goes here.
    await fx.write('DELETE FROM account_adplatform_links WHERE account_id = $1 AND adplatform_account_id = $2', [
      link!.account_id,
      link!.pa,
    ]);
    try {
      for (const endpoint of ENDPOINTS.filter(
        (e) => e.path === 'campaigns' || e.path === 'adplatform-accounts' || e.path === 'keywords',
      )) {
        const none = await linkedTo(endpoint.entities, 'none');
        expect(none.length, endpoint.path).toBeGreaterThan(0);
        expect(await ids(endpoint.path, endpoint.plural, { filter: 'accountId == null' }), endpoint.path).toEqual(none);
        const linked = await linkedTo(endpoint.entities, [link!.account_id]);
        expect(
          await ids(endpoint.path, endpoint.plural, { filter: `accountId in [${link!.account_id}, null]` }),
          endpoint.path,
        ).toEqual(sorted([...linked, ...none]));
        const all = await ids(endpoint.path, endpoint.plural, {});
        expect(await ids(endpoint.path, endpoint.plural, { filter: 'accountId != null' }), endpoint.path).toEqual(
          all.filter((id) => !none.includes(id)),
        );
      }
    } finally {
      await fx.write(
        'INSERT INTO account_adplatform_links (account_id, adplatform_account_id, status) VALUES ($1, $2, $3)',
        [link!.account_id, link!.pa, link!.status],
      );
    }
  });

  it("another organization's account, an unknown one and a fraction match nothing; it combines with other filters", async () => {
    const other = (
      await fx.sql<{ id: number }>('SELECT min(id) AS id FROM accounts WHERE organization_id = $1', [fx.orgs[1]!.id])
    )[0]!.id;
    expect(await ids('campaigns', 'campaigns', { filter: `accountId == ${other}` })).toEqual([]);
    expect(await ids('campaigns', 'campaigns', { filter: 'accountId == 987654321' })).toEqual([]);
    const account = (
      await fx.sql<{ id: number }>('SELECT min(id) AS id FROM accounts WHERE organization_id = $1', [org])
    )[0]!.id;
    expect(await ids('campaigns', 'campaigns', { filter: `accountId == ${account + 0.5}` })).toEqual([]);
    const rows = (
      await fetchAll(fx, 'campaigns', token, { statistics: 'clicks', filter: `accountId == ${account}` }, 'campaigns')
    ).rows;
    const busy = rows.filter((r) => r.statistics.clicks > 10).map((r) => r.id);
    expect(
      await ids('campaigns', 'campaigns', { filter: `accountId == ${account} && statistics.clicks > 10` }),
    ).toEqual(busy);
  });

  it('is a 400 where it cannot mean anything: other operators, strings, sort, formulas, /accounts', async () => {
    for (const [path, query, field] of [
      ['campaigns', { filter: 'accountId > 3' }, 'filter'],
      ['campaigns', { filter: "accountId == '3'" }, 'filter'],
      ['campaigns', { filter: 'accountId == statistics.clicks' }, 'filter'],
      ['campaigns', { filter: "contains(accountId, '3')" }, 'filter'],
      ['campaigns', { filter: 'accountId + 1 == 3' }, 'filter'],
      ['campaigns', { sort: '-accountId' }, 'sort'],
      ['campaigns', { formulas: 'a:accountId * 2:Integer' }, 'formulas'],
      ['accounts', { filter: 'accountId == 1' }, 'filter'],
    ] as const) {
      const res = await fx.report(path, token, query);
      expect(res.status, `${path} ${JSON.stringify(query)}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.json.error.details[0].field).toBe(field);
      expect(res.json.error.message).toMatch(/accountId/);
    }
  });
});

describe('DayOfWeek buckets run MONDAY..SUNDAY', () => {
  const WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
  const rank = (day: string) => WEEK.indexOf(day);

  it('in the rows of each entity, with other segments, and in a sort by segments.dayOfWeek both ways', async () => {
    const plain = (await fetchAll(fx, 'campaigns', token, { segments: 'DayOfWeek', statistics: 'clicks' }, 'campaigns'))
      .rows;
    expect(plain.length).toBeGreaterThan(7);
    for (let i = 1; i < plain.length; i++) {
      const [a, b] = [plain[i - 1]!, plain[i]!];
      if (a.id === b.id)
        expect(rank(a.segments.dayOfWeek), `campaign ${a.id}`).toBeLessThan(rank(b.segments.dayOfWeek));
      else expect(a.id).toBeLessThan(b.id);
    }
    const accounts = (
      await fetchAll(fx, 'accounts', token, { segments: 'DeviceType,DayOfWeek', statistics: 'clicks' }, 'accounts')
    ).rows;
    for (let i = 1; i < accounts.length; i++) {
      const [a, b] = [accounts[i - 1]!, accounts[i]!];
      if (a.id === b.id && a.segments.deviceType === b.segments.deviceType)
        expect(rank(a.segments.dayOfWeek)).toBeLessThan(rank(b.segments.dayOfWeek));
    }
    const ascending = (
      await fetchAll(
        fx,
        'accounts',
        token,
        { segments: 'DayOfWeek', statistics: 'clicks', sort: 'segments.dayOfWeek' },
        'accounts',
      )
    ).rows;
    const days = ascending.map((r) => r.segments.dayOfWeek as string);
    expect(days).toEqual([...days].sort((a, b) => rank(a) - rank(b)));
    expect(days[0]).toBe('MONDAY');
    const descending = (
      await fetchAll(
        fx,
        'accounts',
        token,
        { segments: 'DayOfWeek', statistics: 'clicks', sort: '-segments.dayOfWeek' },
        'accounts',
      )
    ).rows;
    expect(descending[0]!.segments.dayOfWeek).toBe('SUNDAY');
    expect(descending.map((r) => r.segments.dayOfWeek)).toEqual([...days].sort((a, b) => rank(b) - rank(a)));
  });

  it('in CSV and NDJSON exports, in the order of the JSON form', async () => {
    const query = { segments: 'DayOfWeek', statistics: 'clicks' };
    const json = (await fetchAll(fx, 'campaigns', token, query, 'campaigns')).rows.map(
      (r) => `${r.id} ${r.segments.dayOfWeek}`,
    );
    const csv = await fx.report('campaigns', token, { ...query, format: 'csv' });
    expect(csv.status).toBe(200);
    const [header, ...lines] = csv.text.trim().split('\n');
    const columns = header!.split(',');
    const at = (line: string, name: string) => line.split(',')[columns.indexOf(name)];
    expect(lines.map((l) => `${at(l, 'id')} ${at(l, 'segments.dayOfWeek')}`)).toEqual(json);
    for (let i = 1; i < lines.length; i++) {
      if (at(lines[i - 1]!, 'id') === at(lines[i]!, 'id'))
        expect(rank(at(lines[i - 1]!, 'segments.dayOfWeek')!)).toBeLessThan(rank(at(lines[i]!, 'segments.dayOfWeek')!));
    }
    const ndjson = await fx.report('campaigns', token, { ...query, format: 'ndjson' });
    expect(
      ndjson.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((r) => `${r.id} ${r.segments.dayOfWeek}`),
    ).toEqual(json);
  });
});
