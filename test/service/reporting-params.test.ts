import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDays,
  approx,
  fetchAll,
  LEVELS,
  startReportingFixture,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * The reporting parameters (supplement 5): every bad one is a 400 that names it (and the
 * position in an expression); formulas, labels, custom fields, name/text and the field
 * catalogue do what they say.
 */

let fx: ReportingFixture;
let Y: string;
let token: string;
const world = { account: 0, second: 0, third: 0 };

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
  Y = fx.yesterday;
  token = fx.orgs[0]!.token;
  const accounts = await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id', [
    fx.orgs[0]!.id,
  ]);
  world.account = accounts[0]!.id;
  // Labels and custom fields the way a client writes them: through the provisioning API.
  const put = await fx.json('PUT', `/provisioning/v0/accounts/id/${world.account}/labels`, token, {
    labels: { team: 'Ωmega team', tier: 'platinum' },
  });
  if (put.status !== 200) throw new Error(`PUT labels: ${put.status} ${put.text}`);
  const patch = await fx.json(
    'PATCH',
    `/provisioning/v0/accounts/id/${world.account}`,
    token,
    { account: { field3: 'x', field21: 42.5 } },
    'application/merge-patch+json',
  );
  if (patch.status !== 200) throw new Error(`PATCH account: ${patch.status} ${patch.text}`);
  for (const [key, labels, field3] of [
    ['second', { team: 'Alpha' }, 'y'],
    ['third', {}, 'x'],
  ] as const) {
    const created = await fx.json('POST', '/provisioning/v0/accounts', token, {
      account: { name: `Params ${key}`, languageCode: 'de', countryCode: 'DE', currency: 'EUR', labels, field3 },
    });
    if (created.status !== 201) throw new Error(`POST account: ${created.status} ${created.text}`);
    world[key] = created.json.account.id;
  }
});
afterAll(async () => {
  await fx?.close();
});

/** A 400 whose first detail names the parameter; returns the error. */
async function expect400(level: string, query: QueryInput | string, field: string | readonly string[]) {
  const res = await fx.report(level, token, query);
  const label = `${level} ${typeof query === 'string' ? query : JSON.stringify(query)}`;
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(400);
  expect(res.json?.error, label).toBeDefined();
  const fields = typeof field === 'string' ? [field] : field;
  expect(fields, `${label}: details ${JSON.stringify(res.json.error.details)}`).toContain(
    res.json.error.details?.[0]?.field,
  );
  return res.json.error as {
    code: string;
    message: string;
    details: Array<{ field: string; code: string; message: string }>;
  };
}
async function expect200(level: string, query: QueryInput | string) {
  const res = await fx.report(level, token, query);
  expect(
    res.status,
    `${level} ${typeof query === 'string' ? query : JSON.stringify(query)}: ${res.text.slice(0, 300)}`,
  ).toBe(200);
  return res;
}
const text = (error: { message: string; details: Array<{ message: string }> }) =>
  `${error.message} ${error.details.map((d) => d.message).join(' ')}`;
/** The N of "position N" in an error. */
function positionOf(error: { message: string; details: Array<{ message: string }> }): number | undefined {
  const match = /position (\d+)/.exec(text(error));
  return match ? Number(match[1]) : undefined;
}

const CATALOGUE = [
  'impressions',
  'clicks',
  'cost',
  'conversions',
  'conversionValue',
  'ctr',
  'averageCpc',
  'conversionRate',
  'costPerConversion',
  'costWithMarkup',
  'calls',
  'callConversions',
  'callConversionsFractional',
  'totalConversions',
  'averageCpm',
  'valuePerConversion',
  'roas',
];

describe('bad parameters: 400 naming the parameter', () => {
  it('an unknown statistic, and the message lists the valid ones', async () => {
    for (const level of LEVELS) {
      const error = await expect400(level.path, { statistics: 'impressions,clickz' }, 'statistics');
      expect(text(error)).toContain('clickz');
      for (const name of CATALOGUE) expect(text(error), name).toContain(name);
    }
    await expect400('campaigns', { statistics: 'statistics.' }, 'statistics');
    await expect400('campaigns', { statistics: '' }, 'statistics');
    await expect400('campaigns', { statistics: 'clicks,,cost' }, 'statistics');
    await expect400('campaigns', { statistics: 'segments.clicks' }, 'statistics');
  });

  it('an unknown segment', async () => {
    for (const segments of ['Hourly', 'Day,Quarterly', 'Network', ''])
      await expect400('campaigns', { segments }, 'segments');
  });

  it('bad dates: not YYYY-MM-DD, or not a day of the calendar', async () => {
    await expect400('campaigns', { startDate: '2026-02-30' }, 'startDate');
    await expect400('campaigns', { endDate: '2025-02-29' }, 'endDate');
    await expect400('campaigns', { startDate: '2026-1-5' }, 'startDate');
    await expect400('campaigns', { startDate: '20260105' }, 'startDate');
    await expect400('campaigns', { startDate: 'yesterday' }, 'startDate');
    await expect400('campaigns', { endDate: ' 2026-01-05' }, 'endDate');
    await expect200('campaigns', { startDate: '2024-02-29', endDate: '2024-02-29', limit: 1 });
  });

  it('bad dates: a month or day out of range (2026-13-01, 2026-00-10, 2026-01-32)', async () => {
    const got: string[] = [];
    for (const [name, value] of [
      ['endDate', '2026-13-01'],
      ['startDate', '2026-13-01'],
      ['startDate', '2026-00-10'],
      ['endDate', '2026-01-32'],
      ['startDate', '2026-12-00'],
    ] as const) {
      const res = await fx.report('campaigns', token, { [name]: value });
      got.push(`${name}=${value}: ${res.status} ${res.json?.error?.details?.[0]?.field ?? ''}`);
    }
    expect(got).toEqual([
      'endDate=2026-13-01: 400 endDate',
      'startDate=2026-13-01: 400 startDate',
      'startDate=2026-00-10: 400 startDate',
      'endDate=2026-01-32: 400 endDate',
      'startDate=2026-12-00: 400 startDate',
    ]);
  });

  it('bad dates: endDate before startDate, a range over five years', async () => {
    await expect400('campaigns', { startDate: addDays(Y, -3), endDate: addDays(Y, -4) }, ['startDate', 'endDate']);
    await expect400('campaigns', { startDate: '2019-01-01', endDate: '2025-06-30' }, ['startDate', 'endDate']);
    await expect400('campaigns', { startDate: '2020-01-01', endDate: '2025-02-01' }, ['startDate', 'endDate']);
    // Exactly five years is fine.
    await expect200('campaigns', { startDate: '2021-01-01', endDate: '2025-12-31', limit: 1 });
  });

  it('a range just over five years (five years and three days) is refused too', async () => {
    await expect400('campaigns', { startDate: '2021-01-01', endDate: '2026-01-03' }, ['startDate', 'endDate']);
  });

  it('a wrong offset or range is refused for what is wrong with it (issue 36 item 5)', async () => {
    // Too big to page to: not an integer the service takes, whatever limit is.
    for (const offset of ['9223372036854775808', '1000000000000000']) {
      const error = await expect400('ads', { offset }, 'offset');
      expect(text(error)).toContain('integer from 0 to 999999999999999');
      expect(text(error)).not.toContain('multiple');
    }
    const notMultiple = await expect400('ads', { limit: 7, offset: 8 }, 'offset');
    expect(text(notMultiple)).toContain('multiple of limit (7)');
    // A range in year 9995 is a range of a few days: its five-year bound lies in year 10000.
    const far = await expect200('campaigns', { startDate: '9995-01-01', endDate: '9995-01-05' });
    // Every campaign, with no figures in those days.
    expect(far.json.campaigns.length).toBeGreaterThan(0);
    for (const row of far.json.campaigns) expect(row.statistics.impressions).toBe(0);
    await expect200('campaigns', { startDate: '9995-01-01', endDate: '9999-12-31', limit: 1 });
    await expect200('campaigns', { startDate: '9995-01-01', compare: '9994-01-01..9994-01-05' });
    await expect200('campaigns', { compare: '9995-01-01..9999-12-31', limit: 1 });
    // Over five years is still refused, and says so.
    const long = await expect400('campaigns', { startDate: '9990-01-01', endDate: '9995-01-01' }, [
      'startDate',
      'endDate',
    ]);
    expect(text(long)).toContain('longer than five years');
  });

  it('limit outside 1..10000 or not an integer; offset not a multiple of limit', async () => {
    for (const limit of ['0', '10001', '-1', 'abc', '1.5', '', '1e3', '99999999999999999999'])
      await expect400('ads', { limit }, 'limit');
    await expect200('ads', { limit: '10000' });
    for (const offset of ['5', '-100', 'x', '100.0']) await expect400('ads', { offset }, 'offset');
    await expect400('ads', { limit: 7, offset: 8 }, 'offset');
    await expect200('ads', { limit: 7, offset: 14 });
  });

  it('a page over 64 KB (sent in slices) arrives whole: Content-Length counts its bytes, its rows are the pages of 100 end to end', async () => {
    const days = { startDate: addDays(Y, -6), endDate: Y, segments: 'Day' };
    const labelled = await expect200('accounts', { ...days, embed: 'labels', limit: 10_000 });
    const big = await expect200('ads', { ...days, limit: 1000 });
    for (const res of [labelled, big]) expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    // The multi-byte label makes bytes and characters differ.
    expect(Buffer.byteLength(labelled.text)).toBeGreaterThan(labelled.text.length);
    expect(Buffer.byteLength(big.text)).toBeGreaterThan(64 * 1024);
    const paged: unknown[] = [];
    for (let offset = 0; offset < 1000; offset += 100)
      paged.push(...(await expect200('ads', { ...days, limit: 100, offset })).json.ads);
    expect(big.json.ads).toEqual(paged);
  });

  it('an unknown parameter, and a parameter given twice (lists may repeat: list-parameters.test.ts)', async () => {
    for (const level of LEVELS) await expect400(level.path, { foo: '1' }, 'foo');
    await expect400('campaigns', { Statistics: 'clicks' }, 'Statistics');
    await expect400('campaigns', { labels: 'tier:gold' }, 'labels');
    await expect400('campaigns', 'limit=10&limit=10', 'limit');
    await expect400('campaigns', 'filter=id%20%3E%200&filter=id%20%3E%201', 'filter');
    await expect400('campaigns', 'startDate=2026-01-01&startDate=2026-01-01', 'startDate');
    const res = await expect200('campaigns', {
      formulas: ['a:statistics.clicks:Integer', 'b:statistics.cost:Money'],
      limit: 3,
    });
    for (const row of res.json.campaigns) expect(Object.keys(row.formulas).sort()).toEqual(['a', 'b']);
  });

  it('an unknown embed, and an embed the level does not offer', async () => {
    await expect400('accounts', { embed: 'foo' }, 'embed');
    await expect400('accounts', { embed: 'labels,images' }, 'embed');
    await expect400('campaigns', { embed: 'customFields' }, 'embed');
    await expect400('campaigns', { embed: 'images' }, 'embed');
    for (const level of ['adplatform-accounts', 'adgroups', 'keywords'])
      await expect400(level, { embed: 'labels' }, 'embed');
    await expect400('ads', { embed: 'labels' }, 'embed');
    await expect200('accounts', { embed: 'labels,customFields' });
    await expect200('campaigns', { embed: 'labels' });
    await expect200('ads', { embed: 'images,specificFields', limit: 5 });
  });

  it('at most 20 formulas, as repeated parameters or comma-separated', async () => {
    const f = (n: number) => Array.from({ length: n }, (_, i) => `f${i}:statistics.clicks+${i}:Integer`);
    await expect200('campaigns', { formulas: f(20), limit: 1 });
    await expect400('campaigns', { formulas: f(21) }, 'formulas');
    await expect400('campaigns', { formulas: f(21).join(',') }, 'formulas');
    await expect400('campaigns', { formulas: [f(10).join(','), f(21).slice(10).join(',')] }, 'formulas');
  });

  it('a bad formula: unknown type, missing parts, unknown statistic, a string, a duplicate name', async () => {
    for (const formulas of [
      'x:statistics.clicks:Currency',
      'x:statistics.clicks:integer',
      'x:statistics.clicks',
      'statistics.clicks',
      ':statistics.clicks:Integer',
      'x::Integer',
      '1x:statistics.clicks:Integer',
      "x:'abc':Decimal",
      'x:name:Decimal',
      'x:statistics.clicks > 3:Decimal',
      'x:statistics.clicks:Integer,x:statistics.cost:Money',
      'x:foo(statistics.clicks):Decimal',
      'x:max(statistics.clicks):Decimal',
    ]) {
      await expect400('campaigns', { formulas }, 'formulas');
    }
    const error = await expect400(
      'campaigns',
      { formulas: 'x:statistics.clicks + statistics.clickz:Decimal' },
      'formulas',
    );
    expect(text(error)).toContain('statistics.clickz');
    expect([22, 23]).toContain(positionOf(error));
  });

  it('filter syntax errors name the position', async () => {
    for (const [filter, positions] of [
      ['statistics.clicks >> 3', [18, 19]],
      ['statistics.clicks > ', [18, 19, 20, 21]],
      ['statistics.clicks = 3', [18, 19]],
      ['(statistics.clicks > 3', [0, 1, 22, 23]],
      ['statistics.clicks > 3)', [21, 22]],
      ["name == 'abc", [8, 9, 12]],
      ['statistics.clicks > 3 &&', [22, 23, 24, 25]],
      ['statistics.clicks > 3 statistics.cost > 1', [22, 23]],
      ['statistics.clicks ? 1 : 2', [18, 19]],
      ['statistics.clicks > 3 ; 1', [22, 23]],
    ] as const) {
      const error = await expect400('campaigns', { filter }, 'filter');
      expect(text(error), filter).toMatch(/position \d+/);
      expect(positions, `${filter}: ${text(error)}`).toContain(positionOf(error));
    }
  });

  it('an unknown field in filter or sort names it and its position', async () => {
    let error = await expect400('campaigns', { filter: 'statistics.clicks > 1 && statistics.foo > 2' }, 'filter');
    expect(text(error)).toContain('statistics.foo');
    expect([25, 26]).toContain(positionOf(error));
    error = await expect400('campaigns', { filter: 'bogus == 1' }, 'filter');
    expect([0, 1]).toContain(positionOf(error));
    error = await expect400('campaigns', { filter: 'customFields.field3 == "x"' }, 'filter');
    expect(text(error)).toContain('customFields.field3');
    error = await expect400('adgroups', { filter: "labels.tier == 'gold'" }, 'filter');
    expect(text(error)).toContain('labels.tier');
    error = await expect400('accounts', { filter: 'customFields.field31 == 1' }, 'filter');
    // Fact fields are looked up by their own names: a prototype member is no field (before issue 20 it planned a fact operand without a column).
    error = await expect400('campaigns', { filter: "segments.constructor == 'x'" }, 'filter');
    expect(text(error)).toContain('segments.constructor');
    error = await expect400('campaigns', { filter: 'formulas.nope > 1' }, 'filter');
    expect(text(error)).toContain('formulas.nope');
    error = await expect400('campaigns', { sort: 'name,-statistics.foo' }, 'sort');
    expect(text(error)).toContain('statistics.foo');
    expect([5, 6, 7]).toContain(positionOf(error));
    error = await expect400('campaigns', { sort: 'segments.day' }, 'sort');
    error = await expect400('campaigns', { sort: 'name,,id' }, 'sort');
    error = await expect400('campaigns', { sort: '' }, 'sort');
    error = await expect400('campaigns', { sort: '--name' }, 'sort');
    error = await expect400('campaigns', { sort: '+name' }, 'sort');
  });

  it('comparing a string with a number', async () => {
    for (const filter of [
      "statistics.clicks == 'abc'",
      'name > 5',
      "id == '7'",
      "statistics.ctr in ['a']",
      'name in [1, 2]',
      'contains(statistics.clicks, "1")',
    ]) {
      const error = await expect400('campaigns', { filter }, 'filter');
      expect(text(error), filter).toMatch(/position \d+/);
    }
  });

  it('text only on keywords, name not on keywords', async () => {
    for (const level of ['accounts', 'adplatform-accounts', 'campaigns', 'adgroups', 'ads'])
      await expect400(level, { text: 'shoes' }, 'text');
    await expect400('keywords', { name: 'shoes' }, 'name');
  });

  it('counts name characters as code points: 255 emoji are a valid name, 256 are not', async () => {
    await expect200('campaigns', { name: '😀'.repeat(255) });
    await expect400('campaigns', { name: '😀'.repeat(256) }, 'name');
    // An expression of 2,000 characters (2,900 UTF-16 units) is within the cap; 2,001 are not.
    const filter = (characters: number) => `name == '${'😀'.repeat(900)}${'a'.repeat(characters - 910)}'`;
    await expect200('campaigns', { filter: filter(2000) });
    await expect400('campaigns', { filter: filter(2001) }, 'filter');
  });

  it('other bad values: totals, empty name, embed list with an empty entry', async () => {
    await expect400('campaigns', { totals: 'yes' }, 'totals');
    await expect400('campaigns', { name: '' }, 'name');
    await expect400('campaigns', { embed: '' }, 'embed');
  });
});

describe('formulas', () => {
  const CPC2 = 'cpc2:statistics.cost/statistics.clicks:Money';

  it('cpc2 = cost/clicks as Money equals averageCpc (null where there are no clicks), also per Day', async () => {
    for (const query of [{}, { segments: 'Day', startDate: addDays(Y, -6), endDate: Y }] as QueryInput[]) {
      const { rows } = await fetchAll(
        fx,
        'campaigns',
        token,
        { ...query, formulas: CPC2, statistics: 'averageCpc,clicks' },
        'campaigns',
      );
      expect(rows.length).toBeGreaterThan(0);
      let nulls = 0;
      for (const row of rows) {
        if (row.statistics.averageCpc === null) nulls++;
        expect(
          approx(row.formulas.cpc2, row.statistics.averageCpc, 0, 5.01e-7),
          `${row.id}: ${row.formulas.cpc2} vs ${row.statistics.averageCpc}`,
        ).toBe(true);
      }
      if (!query.segments) expect(nulls, 'campaigns without clicks').toBeGreaterThan(0);
    }
  });

  it('usable in filter and sort', async () => {
    const { rows: all } = await fetchAll(fx, 'campaigns', token, { statistics: 'averageCpc' }, 'campaigns');
    const { rows: filtered } = await fetchAll(
      fx,
      'campaigns',
      token,
      { formulas: CPC2, statistics: 'averageCpc', filter: 'formulas.cpc2 > 1' },
      'campaigns',
    );
    expect(filtered.map((r) => r.id)).toEqual(
      all.filter((r) => r.statistics.averageCpc !== null && r.statistics.averageCpc > 1).map((r) => r.id),
    );
    expect(filtered.length).toBeGreaterThan(0);
    const { rows: sorted } = await fetchAll(
      fx,
      'campaigns',
      token,
      { formulas: CPC2, statistics: 'averageCpc', sort: '-formulas.cpc2' },
      'campaigns',
    );
    const expected = [...all].sort((a, b) => {
      const [x, y] = [a.statistics.averageCpc, b.statistics.averageCpc];
      if (x === null || y === null) return x === y ? a.id - b.id : x === null ? 1 : -1;
      return y - x || a.id - b.id;
    });
    // Sorting by the rounded formula may swap neighbours closer than a micro; compare the values' order.
    const values = sorted.map((r) => r.formulas.cpc2);
    for (let i = 1; i < values.length; i++) {
      if (values[i] !== null) expect(values[i - 1], `row ${i}`).not.toBeNull();
      if (values[i] !== null && values[i - 1] !== null) expect(values[i - 1]).toBeGreaterThanOrEqual(values[i]);
    }
    expect(sorted.map((r) => r.id).sort((a, b) => a - b)).toEqual(expected.map((r) => r.id).sort((a, b) => a - b));
    // Filter and sort at once, ascending.
    const { rows: both } = await fetchAll(
      fx,
      'campaigns',
      token,
      { formulas: CPC2, filter: 'formulas.cpc2 > 1', sort: 'formulas.cpc2' },
      'campaigns',
    );
    expect(both.map((r) => r.id).sort((a, b) => a - b)).toEqual(filtered.map((r) => r.id).sort((a, b) => a - b));
    for (let i = 1; i < both.length; i++) expect(both[i - 1].formulas.cpc2).toBeLessThanOrEqual(both[i].formulas.cpc2);
  });

  it('types and functions: Integer rounds, min/max/abs/round/if compute from the sums', async () => {
    const { rows } = await fetchAll(
      fx,
      'adgroups',
      token,
      {
        statistics: 'clicks,impressions,cost,conversions',
        formulas: [
          'twice:statistics.clicks*2:Integer',
          'atLeast10:max(statistics.clicks, 10):Decimal',
          'atMost10:min(statistics.clicks, 10, 20):Decimal',
          'neg:abs(0 - statistics.cost):Money',
          'r1:round(statistics.cost, 1):Money',
          'busy:if(statistics.clicks > 5, 1, 0):Integer',
          'half:statistics.impressions / 2:Integer',
          'pct:statistics.clicks / statistics.impressions * 100:Percentage',
        ],
      },
      'adGroups',
    );
    for (const row of rows) {
      const s = row.statistics;
      const f = row.formulas;
      expect(f.twice).toBe(2 * s.clicks);
      expect(f.atLeast10).toBe(Math.max(s.clicks, 10));
      expect(f.atMost10).toBe(Math.min(s.clicks, 10));
      expect(approx(f.neg, s.cost)).toBe(true);
      expect(approx(f.r1, Math.round(s.cost * 10) / 10, 1e-9, 0.051)).toBe(true);
      expect(f.busy).toBe(s.clicks > 5 ? 1 : 0);
      expect(Number.isInteger(f.half)).toBe(true);
      expect(Math.abs(f.half - s.impressions / 2)).toBeLessThanOrEqual(0.5);
      expect(approx(f.pct, s.impressions === 0 ? null : (100 * s.clicks) / s.impressions, 1e-9, 1e-9)).toBe(true);
    }
  });
});

describe('platform types and ad embeds', () => {
  it('adPlatformType filters accept the old names (ADWORDS = GOOGLE_ADS)', async () => {
    const ids = async (filter: string) =>
      (await fetchAll(fx, 'campaigns', token, { filter }, 'campaigns')).rows.map((r) => r.id);
    const google = await ids("adPlatformType == 'GOOGLE_ADS'");
    expect(google.length).toBeGreaterThan(0);
    expect(await ids("adPlatformType == 'ADWORDS'")).toEqual(google);
    expect(await ids("adPlatformType in ['ADWORDS']")).toEqual(google);
    const rows = (await fetchAll(fx, 'campaigns', token, {}, 'campaigns')).rows;
    expect(google).toEqual(rows.filter((r) => r.adPlatformAccountType === 'GOOGLE_ADS').map((r) => r.id));
  });

  it('embed=images,specificFields on ads: the image URLs, and specific fields on FACEBOOK ads only', async () => {
    const stored = await fx.sql<{ id: number; image_urls: string[]; specific_fields: string | null; type: string }>(
      `SELECT a.id, a.image_urls, a.specific_fields, c.ad_platform_type AS type FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id
         JOIN campaigns c ON c.id = g.campaign_id WHERE a.organization_id = $1 ORDER BY a.id`,
      [fx.orgs[0]!.id],
    );
    const { rows } = await fetchAll(fx, 'ads', token, { embed: 'images,specificFields', statistics: 'clicks' }, 'ads');
    expect(rows.map((r) => r.id)).toEqual(stored.map((r) => r.id));
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const row of rows) {
      const ad = byId.get(row.id)!;
      expect(row.images).toEqual([...ad.image_urls]);
      if (ad.type === 'FACEBOOK' && ad.specific_fields !== null)
        expect(row.specificFields).toEqual(JSON.parse(ad.specific_fields));
      else expect(row.specificFields ?? null).toBeNull();
    }
    const plain = (await fx.report('ads', token, { limit: 3 })).json.ads;
    for (const row of plain) {
      expect(row).not.toHaveProperty('images');
      expect(row).not.toHaveProperty('specificFields');
    }
  });
});

describe('labels and custom fields written through the provisioning API', () => {
  it('are filterable, sortable and embeddable at once', async () => {
    const res = await expect200('accounts', {
      filter: "labels.team == 'Ωmega team' && customFields.field3 == 'x' && customFields.field21 > 40",
      sort: '-labels.tier,customFields.field3',
      embed: 'labels,customFields',
    });
    expect(res.json.accounts.map((r: any) => r.id)).toEqual([world.account]);
    const row = res.json.accounts[0];
    expect(row.labels).toMatchObject({ team: 'Ωmega team', tier: 'platinum' });
    expect(row.customFields).toMatchObject({ field3: 'x', field21: 42.5 });
    expect(Object.keys(row.customFields)).toHaveLength(30);
    expect(Number(res.headers['x-totalcount'])).toBe(1);
  });

  it('sorting by a label and a custom field: values ascending, rows without the label last, then id', async () => {
    const { rows } = await fetchAll(
      fx,
      'accounts',
      token,
      { sort: 'labels.team', embed: 'labels', filter: `id in [${world.account}, ${world.second}, ${world.third}]` },
      'accounts',
    );
    expect(rows.map((r) => r.id)).toEqual([world.second, world.account, world.third]);
    expect(rows[2].labels).toEqual({});
    const byField = (
      await fetchAll(
        fx,
        'accounts',
        token,
        { sort: '-customFields.field3', filter: `id in [${world.account}, ${world.second}, ${world.third}]` },
        'accounts',
      )
    ).rows;
    expect(byField.map((r) => r.id)).toEqual([world.second, world.account, world.third]);
    const startsWith = (
      await fetchAll(
        fx,
        'accounts',
        token,
        { filter: "startsWith(labels.team, 'Ω') || contains(labels.team, 'lph')" },
        'accounts',
      )
    ).rows;
    expect(startsWith.map((r) => r.id)).toEqual([world.account, world.second]);
  });

  it('a changed label shows at once in reporting; campaign labels embed without system labels', async () => {
    const put = await fx.json('PUT', `/provisioning/v0/accounts/id/${world.second}/labels`, token, {
      labels: { team: 'Beta' },
    });
    expect(put.status).toBe(200);
    const res = await expect200('accounts', { filter: "labels.team == 'Beta'", embed: 'labels' });
    expect(res.json.accounts.map((r: any) => r.id)).toEqual([world.second]);
    expect(res.json.accounts[0].labels).toEqual({ team: 'Beta' });
    const { rows } = await fetchAll(fx, 'campaigns', token, { embed: 'labels' }, 'campaigns');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(typeof row.labels).toBe('object');
      expect(Object.keys(row.labels).filter((k) => k.startsWith('sys.'))).toEqual([]);
    }
  });
});

describe('name and text', () => {
  it('exact, with * wildcards, and LIKE characters matching themselves', async () => {
    const campaigns = await fx.sql<{ id: number; name: string }>(
      'SELECT id, name FROM campaigns WHERE organization_id = $1 ORDER BY id',
      [fx.orgs[0]!.id],
    );
    const target = campaigns[0]!;
    const ids = async (query: QueryInput) =>
      (await fetchAll(fx, 'campaigns', token, query, 'campaigns')).rows.map((r) => r.id);
    expect(await ids({ name: target.name })).toEqual(campaigns.filter((c) => c.name === target.name).map((c) => c.id));
    const prefix = target.name.slice(0, 4);
    expect(await ids({ name: `${prefix}*` })).toEqual(
      campaigns.filter((c) => c.name.startsWith(prefix)).map((c) => c.id),
    );
    const suffix = target.name.slice(-3);
    expect(await ids({ name: `*${suffix}` })).toEqual(
      campaigns.filter((c) => c.name.endsWith(suffix)).map((c) => c.id),
    );
    expect(await ids({ name: `${prefix}*${suffix}` })).toEqual(
      campaigns
        .filter(
          (c) => c.name.startsWith(prefix) && c.name.endsWith(suffix) && c.name.length >= prefix.length + suffix.length,
        )
        .map((c) => c.id),
    );
    expect(await ids({ name: '*' })).toEqual(campaigns.map((c) => c.id));
    expect(
      await ids({
        name: target.name.toUpperCase() === target.name ? target.name.toLowerCase() : target.name.toUpperCase(),
      }),
    ).toEqual([]);
    expect(await ids({ name: '%' })).toEqual([]);
    expect(await ids({ name: `${target.name.slice(0, 2)}_${target.name.slice(3)}` })).toEqual(
      target.name[2] === '_' ? [target.id] : [],
    );
    expect(await ids({ name: target.name.slice(0, -1) })).toEqual(
      campaigns.filter((c) => c.name === target.name.slice(0, -1)).map((c) => c.id),
    );
  });

  it('text on keywords; name on accounts, platform accounts, ad groups and ads', async () => {
    const keyword = (
      await fx.sql<{ text: string }>('SELECT text FROM keywords WHERE organization_id = $1 ORDER BY id LIMIT 1', [
        fx.orgs[0]!.id,
      ])
    )[0]!;
    const expected = await fx.sql<{ id: number }>(
      "SELECT id FROM keywords WHERE organization_id = $1 AND text LIKE $2 || '%' ORDER BY id",
      [fx.orgs[0]!.id, keyword.text.slice(0, 3)],
    );
    const { rows } = await fetchAll(fx, 'keywords', token, { text: `${keyword.text.slice(0, 3)}*` }, 'keywords');
    expect(rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    for (const row of rows) expect(row.text.startsWith(keyword.text.slice(0, 3))).toBe(true);
    for (const [level, table, plural] of [
      ['accounts', 'accounts', 'accounts'],
      ['adplatform-accounts', 'adplatform_accounts', 'adPlatformAccounts'],
      ['adgroups', 'ad_groups', 'adGroups'],
      ['ads', 'ads', 'ads'],
    ] as const) {
      const one = (
        await fx.sql<{ id: number; name: string }>(
          `SELECT id, name FROM ${table} WHERE organization_id = $1 ORDER BY id DESC LIMIT 1`,
          [fx.orgs[0]!.id],
        )
      )[0]!;
      const same = await fx.sql<{ id: number }>(
        `SELECT id FROM ${table} WHERE organization_id = $1 AND name = $2 ORDER BY id`,
        [fx.orgs[0]!.id, one.name],
      );
      const got = (await fetchAll(fx, level, token, { name: one.name }, plural)).rows;
      expect(
        got.map((r) => r.id),
        level,
      ).toEqual(same.map((r) => r.id));
    }
  });
});

describe('GET /reporting/v0/fields', () => {
  it('lists every endpoint with its statistics (type, additive), segments, and what it filters, sorts and embeds', async () => {
    const res = await fx.get('/reporting/v0/fields', token);
    expect(res.status).toBe(200);
    const endpoints: any[] = Array.isArray(res.json.endpoints)
      ? res.json.endpoints
      : Object.entries(res.json.endpoints ?? res.json).map(([path, v]: [string, any]) => ({ path, ...v }));
    const embeds: Record<string, string[]> = {
      accounts: ['customFields', 'labels'],
      'adplatform-accounts': [],
      campaigns: ['labels'],
      adgroups: [],
      keywords: [],
      ads: ['images', 'specificFields'],
    };
    const types: Record<string, string> = {
      impressions: 'Integer',
      clicks: 'Integer',
      cost: 'Money',
      conversions: 'Decimal',
      conversionValue: 'Money',
      ctr: 'Ratio',
      averageCpc: 'Ratio',
      roas: 'Ratio',
      costWithMarkup: 'Money',
    };
    for (const level of LEVELS) {
      const endpoint = endpoints.find((e) => String(e.path).replace(/^\/reporting\/v0\//, '') === level.path);
      expect(endpoint, level.path).toBeDefined();
      const statistics = new Map<string, any>(endpoint.statistics.map((s: any) => [s.name, s]));
      for (const name of CATALOGUE) expect(statistics.has(name), `${level.path} ${name}`).toBe(true);
      for (const [name, type] of Object.entries(types))
        expect(statistics.get(name).type, `${level.path} ${name}`).toBe(type);
      for (const name of ['impressions', 'cost', 'conversions', 'totalConversions'])
        expect(statistics.get(name).additive, name).toBe(true);
      for (const name of [
        'ctr',
        'averageCpc',
        'averageCpm',
        'conversionRate',
        'costPerConversion',
        'valuePerConversion',
        'roas',
      ])
        expect(statistics.get(name).additive, name).toBe(false);
      const segments = endpoint.segments.map((s: any) => (typeof s === 'string' ? s : s.name));
      // The daily facts' segments everywhere; the breakdowns (split per campaign day) down to campaigns only.
      const daily = ['Day', 'DayOfWeek', 'DeviceType', 'Month', 'NetworkType', 'Quarter', 'Week', 'WeekSunday', 'Year'];
      const breakdowns = [
        'Age',
        'ConversionAction',
        'Country',
        'Gender',
        'Hour',
        'HourOfDay',
        'PlatformPosition',
        'PublisherPlatform',
        'Region',
      ];
      const campaignOrAbove = ['accounts', 'adplatform-accounts', 'campaigns'].includes(level.path);
      expect([...segments].sort(), level.path).toEqual([...daily, ...(campaignOrAbove ? breakdowns : [])].sort());
      expect([...endpoint.embeddable].sort(), level.path).toEqual(embeds[level.path]);
      const filterable: string[] = endpoint.filterable;
      const sortable: string[] = endpoint.sortable;
      for (const name of ['id', level.path === 'keywords' ? 'text' : 'name']) {
        expect(filterable, level.path).toContain(name);
        expect(sortable, level.path).toContain(name);
      }
      expect(filterable.some((f) => f.startsWith('statistics.'))).toBe(true);
      expect(sortable.some((f) => f.startsWith('statistics.'))).toBe(true);
      expect(
        filterable.some((f) => f.startsWith('labels.')),
        level.path,
      ).toBe(level.path === 'accounts' || level.path === 'campaigns');
      expect(
        filterable.some((f) => f.startsWith('customFields.')),
        level.path,
      ).toBe(level.path === 'accounts');
    }
  });

  it('gives each statistic its unit and label, each segment a label, each formula type its unit (issue 43)', async () => {
    const res = await fx.get('/reporting/v0/fields', token);
    expect(res.status).toBe(200);
    const units: Record<string, string> = {
      impressions: 'count',
      clicks: 'count',
      conversions: 'count',
      calls: 'count',
      cost: 'money',
      conversionValue: 'money',
      costWithMarkup: 'money',
      averageCpc: 'money',
      averageCpm: 'money',
      costPerConversion: 'money',
      valuePerConversion: 'money',
      ctr: 'percent',
      conversionRate: 'percent',
      roas: 'ratio',
      reach: 'count',
      frequency: 'ratio',
      searchImpressionShare: 'percent',
      searchRankLostImpressionShare: 'percent',
    };
    const seen = new Set<string>();
    const statisticEndpoints = res.json.endpoints.filter((e: any) => Array.isArray(e.statistics));
    expect(statisticEndpoints.length).toBe(11);
    for (const endpoint of statisticEndpoints) {
      for (const s of endpoint.statistics) {
        expect(['count', 'money', 'ratio', 'percent', 'duration'], `${endpoint.path} ${s.name}`).toContain(s.unit);
        expect(typeof s.label === 'string' && s.label.length > 0, `${endpoint.path} ${s.name}`).toBe(true);
        if (s.type === 'Money') expect(s.unit, s.name).toBe('money');
        if (s.type === 'Integer' || s.type === 'Decimal') expect(s.unit, s.name).toBe('count');
        if (units[s.name]) {
          expect(s.unit, s.name).toBe(units[s.name]);
          seen.add(s.name);
        }
      }
      for (const segment of endpoint.segments) expect(segment.label.length, segment.name).toBeGreaterThan(0);
      expect(endpoint.formulaTypes).toEqual([
        { type: 'Integer', unit: 'count' },
        { type: 'Decimal', unit: 'count' },
        { type: 'Money', unit: 'money' },
        { type: 'Percentage', unit: 'percent' },
      ]);
    }
    expect([...seen].sort()).toEqual(Object.keys(units).sort());
    const campaigns = statisticEndpoints.find((e: any) => e.path === '/reporting/v0/campaigns');
    const label = (name: string) => campaigns.statistics.find((s: any) => s.name === name).label;
    expect(
      ['impressions', 'clicks', 'ctr', 'averageCpc', 'costPerConversion', 'conversionRate', 'roas'].map(label),
    ).toEqual(['Impressions', 'Clicks', 'CTR', 'Avg. CPC', 'Cost / conv.', 'Conv. rate', 'ROAS']);
    const segmentLabel = (name: string) => campaigns.segments.find((s: any) => s.name === name).label;
    expect(['Day', 'DeviceType', 'NetworkType', 'HourOfDay', 'Age'].map(segmentLabel)).toEqual([
      'Day',
      'Device',
      'Network',
      'Hour of day',
      'Age',
    ]);
    const calls = res.json.endpoints.find((e: any) => e.path === '/reporting/v0/call-details');
    expect(calls.columns.find((c: any) => c.name === 'durationSeconds')).toEqual({
      name: 'durationSeconds',
      type: 'number',
      label: 'Duration',
      unit: 'duration',
    });
    expect(calls.columns.map((c: any) => c.name)).toEqual(calls.fields);
  });

  it('needs a token', async () => {
    const res = await fx.http.get('/reporting/v0/fields');
    expect(res.status).toBe(401);
  });
});
