import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, literal, TEXTS } from '../helpers/injection-corpus.js';
import {
  addDays,
  encodeQuery,
  entityIds,
  LEVELS,
  startReportingFixture,
  type Level,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * Hostile text through every text parameter of every reporting level. Whatever comes in, the
 * answer is 200 or 400 (never a 500), a 200 holds only rows of the caller's organization, a
 * literal stays a literal, and the server logs no error.
 */

let fx: ReportingFixture;
/** Ids per organization index and level path. */
const own: Array<Map<string, Set<number>>> = [];

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d' });
  for (const org of fx.orgs) {
    const byLevel = new Map<string, Set<number>>();
    for (const level of LEVELS) byLevel.set(level.path, await entityIds(fx, level, org.id));
    own.push(byLevel);
  }
});
afterAll(async () => {
  await fx?.close();
});

interface Probe {
  readonly level: Level;
  readonly query: Record<string, string>;
  /** When a 200 must hold only rows whose name (text) is exactly this. */
  readonly exactName?: string;
}

const LITERALS = new Set(TEXTS);

/** Probes whose meaning depends on the level: expressions, sort, formulas, embed, name/text. */
function levelProbes(level: Level, payload: string, withLiterals: boolean): Probe[] {
  const nameParam = level.path === 'keywords' ? 'text' : 'name';
  const probes: Probe[] = [
    { level, query: { filter: payload } },
    { level, query: { filter: `${nameParam} == '${payload}'` } },
    { level, query: { filter: `statistics.clicks > ${payload}` } },
    { level, query: { filter: `id == ${payload}` } },
    { level, query: { sort: payload } },
    { level, query: { sort: `-${payload},id` } },
    { level, query: { formulas: payload } },
    { level, query: { formulas: `f:${payload}:Money` } },
    { level, query: { formulas: `f:statistics.clicks:${payload}` } },
    { level, query: { formulas: `${payload}:statistics.clicks:Integer` } },
    {
      level,
      query: { formulas: `f:statistics.cost*${payload}:Decimal`, filter: 'formulas.f > 0', sort: '-formulas.f' },
    },
    { level, query: { formulas: `f:round(statistics.cost, ${payload}):Money` } },
    { level, query: { formulas: `f:${payload}*${payload}*statistics.clicks:Decimal` } },
    { level, query: { embed: payload } },
  ];
  if (withLiterals && LITERALS.has(payload)) {
    probes.push(
      // Entity stage, bucket stage, with segments, fact stage: each compiles the literal in another place.
      { level, query: { filter: `${nameParam} == ${literal(payload)}` }, exactName: payload },
      { level, query: { filter: `contains(${nameParam}, ${literal(payload)}) || statistics.clicks < 0` } },
      {
        level,
        query: {
          filter: `(${nameParam} in [${literal(payload)}, 'x'] || startsWith(${nameParam}, ${literal(payload)})) && status != ${literal(payload)}`,
          segments: 'Week',
        },
      },
      {
        level,
        query: {
          filter: `(segments.deviceType == ${literal(payload)} || endsWith(segments.deviceType, ${literal(payload)})) && segments.networkType in [${literal(payload)}, 'SEARCH']`,
        },
      },
      { level, query: { filter: `adPlatformType == ${literal(payload)} || adPlatformType in [${literal(payload)}]` } },
      { level, query: { [nameParam]: payload }, ...(payload.includes('*') ? {} : { exactName: payload }) },
      { level, query: { [nameParam]: `${payload}*` } },
    );
  }
  return probes;
}

/** Probes of parameters read the same way on every level; each payload goes to one level (they take turns). */
function sharedProbes(level: Level, payload: string): Probe[] {
  const probes: Probe[] = [
    { level, query: { statistics: payload } },
    { level, query: { statistics: `clicks,${payload}` } },
    { level, query: { segments: payload } },
    { level, query: { segments: `Day,${payload}` } },
    { level, query: { startDate: payload } },
    { level, query: { endDate: payload } },
    { level, query: { limit: payload } },
    { level, query: { offset: payload } },
    { level, query: { totals: payload } },
  ];
  if (payload.length < 100) probes.push({ level, query: { [payload]: '1' } });
  return probes;
}

interface Outcome {
  readonly request: string;
  readonly status: number;
  readonly problem?: string;
}

async function run(probe: Probe, orgIndex: number): Promise<Outcome> {
  const org = fx.orgs[orgIndex]!;
  // Short range and pages, so 200s stay cheap; the total count still shows any foreign row.
  const defaults: Record<string, string> = {};
  if (!('startDate' in probe.query) && !('endDate' in probe.query))
    Object.assign(defaults, { startDate: addDays(fx.yesterday, -2), endDate: fx.yesterday });
  if (!('limit' in probe.query) && !('offset' in probe.query)) defaults.limit = '200';
  const query = encodeQuery({ ...defaults, ...probe.query });
  const request = `/${probe.level.path}?${query.length > 160 ? `${query.slice(0, 160)}…` : query}`;
  // 12 probes at once of one organization can pass its share of database time (README: Fair
  // scheduling): a 429 is then the answer, and its Retry-After what a client does; the probe is
  // about injection, so it asks again (a 429 is never a leak, and still counts if it persists).
  let res = await fx.report(probe.level.path, org.token, query);
  for (let attempt = 0; res.status === 429 && attempt < 5; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(2, Number(res.headers['retry-after'] ?? 1))));
    res = await fx.report(probe.level.path, org.token, query);
  }
  // A target over 12 KiB is refused before the app: 414, or 431 once the head passes Node's 16 KiB (README: Errors).
  if (res.status === 414 || res.status === 431) {
    const targetBytes = Buffer.byteLength(`/reporting/v0/${probe.level.path}?${query}`);
    if (targetBytes > 12 * 1024 && typeof res.json?.error?.code === 'string') return { request, status: res.status };
    return {
      request,
      status: res.status,
      problem: `${res.status} for a target of ${targetBytes} bytes: ${res.text.slice(0, 200)}`,
    };
  }
  if (res.status === 400) {
    if (typeof res.json?.error?.code !== 'string')
      return { request, status: res.status, problem: `400 without an error body: ${res.text.slice(0, 200)}` };
    return { request, status: res.status };
  }
  if (res.status !== 200)
    return { request, status: res.status, problem: `status ${res.status}: ${res.text.slice(0, 200)}` };
  const rows = res.json?.[probe.level.plural];
  if (!Array.isArray(rows))
    return { request, status: res.status, problem: `200 without ${probe.level.plural}: ${res.text.slice(0, 200)}` };
  const mine = own[orgIndex]!.get(probe.level.path)!;
  const foreign = rows.filter((r: any) => !mine.has(r.id));
  const total = Number(res.headers['x-totalcount']);
  if (!res.json.segments && !probe.query.segments && total > mine.size)
    return {
      request,
      status: res.status,
      problem: `X-TotalCount ${total} is more than the ${mine.size} entities of the organization`,
    };
  if (foreign.length > 0)
    return {
      request,
      status: res.status,
      problem: `rows of another organization: ${foreign
        .slice(0, 3)
        .map((r: any) => r.id)
        .join(', ')}`,
    };
  if (probe.exactName !== undefined) {
    const field = probe.level.path === 'keywords' ? 'text' : 'name';
    const wrong = rows.filter((r: any) => r[field] !== probe.exactName);
    if (wrong.length > 0)
      return {
        request,
        status: res.status,
        problem: `${wrong.length} rows whose ${field} is not the literal, e.g. ${JSON.stringify(wrong[0][field])}`,
      };
  }
  return { request, status: res.status };
}

async function runAll(probes: Array<{ probe: Probe; orgIndex: number }>, concurrency = 12): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < probes.length) {
        const { probe, orgIndex } = probes[next++]!;
        outcomes.push(await run(probe, orgIndex));
      }
    }),
  );
  return outcomes;
}

/** Problems grouped by kind, a few examples each, so one failure shows the whole picture. */
function summarize(outcomes: Outcome[]): string[] {
  const groups = new Map<string, string[]>();
  for (const o of outcomes) {
    if (!o.problem) continue;
    const kind = o.problem.slice(0, 40);
    groups.set(kind, [...(groups.get(kind) ?? []), `${o.request} -> ${o.problem}`]);
  }
  return [...groups.values()].flatMap((list) => [`${list.length} x`, ...list.slice(0, 10)]);
}

describe('reporting: an injection corpus through every text parameter of every level', () => {
  for (const level of LEVELS) {
    it(`/${level.path}: 200 or 400 (414/431 past the target limit), own rows only, literals stay literals`, async () => {
      const levelIndex = LEVELS.indexOf(level);
      const probes = CORPUS.flatMap((payload, i) =>
        // Each payload on every other level (so each on three levels, and each level gets half of
        // the corpus in every parameter); the level-independent parameters take turns by level.
        [
          ...((i + levelIndex) % 2 === 0 ? levelProbes(level, payload, true) : []),
          ...(i % LEVELS.length === levelIndex ? sharedProbes(level, payload) : []),
        ].map((probe) => ({
          probe,
          orgIndex: ((i >> 1) + levelIndex) % 2,
        })),
      );
      const outcomes = await runAll(probes);
      expect(outcomes).toHaveLength(probes.length);
      expect(summarize(outcomes)).toEqual([]);
      // The corpus is not all refused: literals and names get through as values.
      expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(probes.length / 10);
    });
  }

  it('ids, parent ids and names of the other organization find nothing', async () => {
    const problems: string[] = [];
    for (const [mine, theirs] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const token = fx.orgs[mine]!.token;
      for (const level of LEVELS) {
        const foreign = [...own[theirs]!.get(level.path)!].slice(0, 150);
        const filters = [
          `id == ${foreign[0]}`,
          `id in [${foreign.join(', ')}]`,
          `id >= ${Math.min(...foreign)} && id <= ${Math.max(...foreign)}`,
        ];
        if (level.path === 'ads' || level.path === 'keywords' || level.path === 'adgroups') {
          const campaigns = [...own[theirs]!.get('campaigns')!].slice(0, 100);
          filters.push(`campaignId in [${campaigns.join(', ')}]`);
        }
        for (const filter of filters) {
          const res = await fx.report(level.path, token, { filter, limit: 10_000 });
          if (res.status !== 200) problems.push(`${level.path} ${filter.slice(0, 60)}: ${res.status}`);
          else {
            const leaked = (res.json[level.plural] as any[]).filter((r) => !own[mine]!.get(level.path)!.has(r.id));
            if (leaked.length > 0) problems.push(`${level.path} ${filter.slice(0, 60)}: ${leaked.length} foreign rows`);
          }
        }
      }
      const theirAccount = (
        await fx.sql<{ name: string }>('SELECT name FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1', [
          fx.orgs[theirs]!.id,
        ])
      )[0]!.name;
      const res = await fx.report('accounts', token, { name: theirAccount });
      if (res.status !== 200 || res.json.accounts.some((r: any) => !own[mine]!.get('accounts')!.has(r.id)))
        problems.push(`accounts name=${theirAccount}: ${res.status} ${res.text.slice(0, 100)}`);
    }
    expect(problems).toEqual([]);
  });

  it('the FACEBOOK and Google Ads endpoints show own rows only, whatever the filter, and keep hostile names literal', async () => {
    const problems: string[] = [];
    const special = [
      ['adplatform-accounts/facebook', 'adplatform-accounts', 'adPlatformAccounts', 'reach'],
      ['campaigns/facebook', 'campaigns', 'campaigns', 'reach'],
      ['ads/facebook', 'ads', 'ads', 'frequency'],
      ['adplatform-accounts/google-ads', 'adplatform-accounts', 'adPlatformAccounts', 'searchImpressionShare'],
    ] as const;
    // The isolation checks mean something only where an organization has figures on the endpoint.
    const reported = new Set<string>();
    for (const [mine, theirs] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const token = fx.orgs[mine]!.token;
      for (const [path, level, plural, statistic] of special) {
        const foreign = [...own[theirs]!.get(level)!].slice(0, 150);
        const queries = [
          { totals: true },
          { filter: `id in [${foreign.join(', ')}]`, totals: true },
          { filter: `statistics.${statistic} >= 0 || id == ${foreign[0]}`, segments: 'Week' },
          ...TEXTS.slice(0, 12).map((text) => ({ name: text, filter: `name != ${literal(text)}` })),
        ];
        for (const query of queries) {
          const res = await fx.report(path, token, query);
          if (res.status !== 200 && res.status !== 400)
            problems.push(`${path} ${JSON.stringify(query).slice(0, 60)}: ${res.status}`);
          else if (res.status === 200) {
            const rows = res.json[plural] as any[];
            const leaked = rows.filter((r) => !own[mine]!.get(level)!.has(r.id));
            if (leaked.length > 0)
              problems.push(`${path} ${JSON.stringify(query).slice(0, 60)}: ${leaked.length} foreign rows`);
            if (query === queries[0] && rows.length > 0 && res.json.totals?.impressions > 0) reported.add(path);
            if (query.filter?.startsWith('id in') && (rows.length > 0 || (res.json.totals?.[statistic] ?? 0) !== 0))
              problems.push(`${path} foreign ids: ${rows.length} rows, totals ${JSON.stringify(res.json.totals)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect([...reported].sort()).toEqual(special.map(([path]) => path).sort());
    expect(fx.errors).toEqual([]);
  });

  it('labels named like Object.prototype members and hostile label and custom field values stay data', async () => {
    const org = fx.orgs[0]!;
    const account = (
      await fx.sql<{ id: number }>('SELECT id FROM accounts WHERE organization_id = $1 ORDER BY id LIMIT 1', [org.id])
    )[0]!.id;
    const hostile = '\' OR 1=1 --\\ " 😀 %_*';
    const labels = { constructor: 'c', toString: hostile, hasOwnProperty: 'h', valueOf: 'v' };
    const put = await fx.json('PUT', `/provisioning/v0/accounts/id/${account}/labels`, org.token, { labels });
    expect(put.status, put.text).toBe(200);
    const patch = await fx.json(
      'PATCH',
      `/provisioning/v0/accounts/id/${account}`,
      org.token,
      { account: { field1: hostile } },
      'application/merge-patch+json',
    );
    expect(patch.status, patch.text).toBe(200);
    const res = await fx.report('accounts', org.token, {
      filter: `labels.constructor == 'c' && labels.toString == ${literal(hostile)} && customFields.field1 == ${literal(hostile)}`,
      sort: 'labels.hasOwnProperty,-labels.valueOf',
      embed: 'labels,customFields',
    });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json.accounts.map((r: any) => r.id)).toEqual([account]);
    expect(res.json.accounts[0].labels).toEqual(labels);
    expect(res.json.accounts[0].customFields.field1).toBe(hostile);
    const other = await fx.report('accounts', fx.orgs[1]!.token, {
      filter: "labels.constructor == 'c'",
      embed: 'labels',
    });
    expect(other.status).toBe(200);
    expect(other.json.accounts).toEqual([]);
  });

  it('raw (unencoded) characters, broken percent-escapes and invalid UTF-8 in the query: 400 or a plain 200, never a 500', async () => {
    const token = fx.orgs[0]!.token;
    const problems: string[] = [];
    for (const raw of [
      'filter=name%20%3D%3D%20%27x%27%5B',
      'filter=name==[1]',
      'filter=name=={1}',
      'filter=a^b',
      'filter=`id`',
      'name=<script>',
      'filter=name%20==%20"x"',
      'name=a|b',
      'name=%ZZ',
      'name=%',
      'name=%E2%82',
      'name=%ED%A0%80',
      'name=%FF%FE',
      'filter=name%20%3D%3D%20%27%ED%A0%80%27',
      'filter=name%20%3D%3D%20%27%C0%AF%27',
      'sort=%00',
      'statistics=%00',
      'segments=%F0%9F%98%80',
      '=1',
      '&&&',
      'limit',
      'startDate',
      'filter',
      'name=a&=b',
    ]) {
      const res = await fx.get(`/reporting/v0/campaigns?${raw}`, token);
      if (res.status !== 200 && res.status !== 400) problems.push(`${raw}: ${res.status} ${res.text.slice(0, 150)}`);
    }
    expect(problems).toEqual([]);
  });

  it('the most expensive well-formed request (20 large formulas used in filter and sort) still answers, 200 or 400', async () => {
    const big = Array.from({ length: 24 }, (_, i) => `statistics.cost*${i + 1}`).join('+');
    const formulas = Array.from({ length: 20 }, (_, i) => `f${i}:${big}:Money`);
    const filter = Array.from({ length: 20 }, (_, i) => `formulas.f${i}>=0`).join('&&');
    const sort = Array.from({ length: 20 }, (_, i) => `-formulas.f${i}`).join(',');
    const started = Date.now();
    const res = await fx.report('keywords', fx.orgs[1]!.token, {
      formulas,
      filter,
      sort,
      segments: 'Day,DeviceType',
      limit: 10_000,
    });
    expect([200, 400], res.text.slice(0, 300)).toContain(res.status);
    expect(Date.now() - started, 'milliseconds').toBeLessThan(15_000);
  });

  it('the server logged no error for any of it', () => {
    expect(fx.errors.map((e) => String((e as Error)?.message ?? e).slice(0, 200))).toEqual([]);
  });
});
