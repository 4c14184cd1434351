import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import {
  clickhouseDialect,
  compileReport,
  duckdbDialect,
  type CompiledQuery,
  type SqlDialect,
} from '../src/sql/compile-report.js';
import { copyToClickhouse, type ClickhouseCopy } from './helpers/clickhouse-copy.js';
import { useGeneratedDatabase } from './helpers/generated-database.js';
import { rowsDifference } from './helpers/parity.js';
import { reportRequestOf } from './helpers/report-request.js';

const generated = useGeneratedDatabase('adreport-ch-parity-');
let clickhouse: ClickhouseCopy;
let dir = '';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-ch-copy-'));
  clickhouse = await copyToClickhouse(generated.db, dir);
}, 120_000);
afterAll(async () => {
  await clickhouse?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

type Statement = 'page' | 'totals' | 'jsonPage' | 'csv' | 'ndjson' | 'parquet' | 'estimates' | 'gate';

function statementOf(
  endpoint: string,
  request: Partial<ReportRequest>,
  statement: Statement,
  d: SqlDialect,
  rollups = true,
): CompiledQuery | undefined {
  const plan = buildPlan(
    ENDPOINT_BY_PATH.get(endpoint)!,
    reportRequestOf({ organizationId: 2, ...request }),
    new Date(),
  );
  const report = compileReport(plan, d, { rollups });
  switch (statement) {
    case 'page':
      return report.page();
    case 'totals':
      return report.totals();
    case 'jsonPage':
      return report.jsonPage();
    case 'csv':
    case 'ndjson':
    case 'parquet':
      return report.export(statement);
    case 'estimates':
      return report.estimates()?.estimates;
    case 'gate':
      return report.estimates()?.gate;
  }
}

const S = ['clicks', 'impressions', 'cost'];
const CASES: Array<[string, Partial<ReportRequest>, Statement[]]> = [
  ['campaigns', {}, ['page', 'jsonPage', 'csv', 'ndjson']],
  ['accounts', {}, ['page', 'jsonPage']],
  ['campaigns', { statistics: S, segments: ['Week'] }, ['page']],
  ['campaigns', { statistics: S, segments: ['DayOfWeek'], sort: '-segments.dayOfWeek,name' }, ['page']],
  ['adgroups', { statistics: S, segments: ['DeviceType'] }, ['page']],
  ['accounts', { statistics: S, filter: "labels.tier == 'bronze' && customFields.field21 > 100" }, ['page']],
  ['campaigns', { statistics: S, filter: 'accountId in [2, null]' }, ['page']],
  [
    'campaigns',
    {
      statistics: ['clicks'],
      formulas: [
        'i:min(statistics.clicks, 10):Integer',
        'd:max(statistics.conversions, 1.5):Decimal',
        'm:abs(-statistics.cost):Money',
        'p:round(statistics.ctr, 2):Percentage',
        'r:round(statistics.cost):Money',
        'c:if(statistics.clicks > 5, statistics.cost / statistics.clicks, 0):Money',
      ],
    },
    ['page'],
  ],
  ['accounts', { statistics: S, currency: 'USD', totals: true }, ['page', 'totals', 'jsonPage', 'estimates', 'gate']],
  ['campaigns', { statistics: S, currency: 'USD' }, ['page', 'estimates', 'gate']],
  ['campaigns', { statistics: [...S, 'ctr'], totals: true }, ['totals']],
  ['accounts', { statistics: ['clicks'], embed: ['labels', 'customFields'] }, ['jsonPage', 'ndjson', 'csv']],
  ['ads', { statistics: ['clicks'], embed: ['images', 'specificFields'], limit: 300 }, ['ndjson', 'csv', 'jsonPage']],
  ['keywords', { statistics: ['clicks'], name: 'a*' }, ['page']],
  ['campaigns', { statistics: S, segments: ['Day'], limit: 500, offset: 20 }, ['jsonPage']],
  ['campaigns/facebook', { segments: ['Week'], totals: true }, ['page', 'totals']],
  ['adplatform-accounts/google-ads', {}, ['page']],
  [
    'accounts',
    {
      statistics: S,
      campaignLabel: { name: 'campaignGroup', stored: 'sys.campaignGroup' },
      filter: "campaignLabel.value != 'Brand'",
    },
    ['jsonPage', 'page'],
  ],
  [
    'adplatform-accounts',
    { statistics: S, segments: ['Month', 'DeviceType'], filter: "segments.networkType != 'SEARCH'" },
    ['page'],
  ],
];

describe('ClickHouse answers as DuckDB', () => {
  it.each(
    CASES.flatMap(([endpoint, request, statements]) =>
      statements.map((s) => [`${endpoint} ${JSON.stringify(request)} ${s}`, endpoint, request, s] as const),
    ),
  )('%s', async (_name, endpoint, request, statement) => {
    const duck = statementOf(endpoint, request, statement, duckdbDialect)!;
    const click = statementOf(endpoint, request, statement, clickhouseDialect)!;
    const duckRows = await generated.sql(duck.sql, duck.params);
    const clickRows = await clickhouse.rows(click);
    expect(duckRows.length).toBeGreaterThan(0);
    const diff = rowsDifference(duck.columns, duckRows, clickRows);
    if (diff !== undefined) console.log(`DIFF ${endpoint} ${statement}: ${diff.slice(0, 3000)}`);
    expect(diff).toBeUndefined();
  });
});
