/**
 * Micro benchmark (tinybench): the pure part of every report request, parameters -> plan -> SQL,
 * for representative requests. It runs on the event loop before every query, so its cost is a
 * floor under each request's latency.
 *
 *   node --import tsx bench/micro.ts [--quick]
 */
import { Bench } from 'tinybench';
import { ENDPOINT_BY_PATH } from '../src/catalog/endpoints.js';
import { buildPlan } from '../src/planner/build-plan.js';
import type { ReportRequest } from '../src/planner/report-plan.js';
import { compileReport } from '../src/sql/compile-report.js';

export interface MicroResult {
  readonly name: string;
  readonly opsPerSecond: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

const NOW = new Date('2026-11-21T12:00:00Z');
const base: ReportRequest = {
  organizationId: 1,
  startDate: '2026-10-22',
  endDate: '2026-11-20',
  statistics: undefined,
  segments: undefined,
  filter: undefined,
  sort: undefined,
  formulas: [],
  embed: undefined,
  name: undefined,
  limit: 100,
  offset: 0,
  totals: false,
};
const TWENTY_FORMULAS = Array.from(
  { length: 20 },
  (_, i) =>
    `f${i}:round((statistics.cost + ${i}) / max(statistics.clicks, 1) * if(statistics.ctr > 0.01, 1.1, 0.9), 2):Money`,
);

/** Parse (jsep) + plan + compile, the way a request goes through them. */
export const MICRO_CASES: ReadonlyArray<{ name: string; endpoint: string; request: ReportRequest }> = [
  { name: 'plain: campaigns, 30 days', endpoint: 'campaigns', request: base },
  {
    name: 'segmented: ad groups by Day x DeviceType',
    endpoint: 'adgroups',
    request: { ...base, segments: ['Day', 'DeviceType'], statistics: ['impressions', 'clicks', 'cost', 'ctr'] },
  },
  {
    name: 'filtered + sorted: keywords',
    endpoint: 'keywords',
    request: {
      ...base,
      filter:
        "statistics.clicks > 10 && (status == 'ENABLED' || contains(text, 'shoe')) && segments.deviceType != 'TABLET'",
      sort: '-statistics.cost,text',
    },
  },
  {
    name: '20 formulas: accounts',
    endpoint: 'accounts',
    request: {
      ...base,
      formulas: TWENTY_FORMULAS,
      sort: '-formulas.f3',
      filter: 'formulas.f1 > 0 && labels.tier == "gold"',
    },
  },
  {
    name: 'reach: campaigns/facebook by Week',
    endpoint: 'campaigns/facebook',
    request: { ...base, segments: ['Week'], totals: true },
  },
];

export async function runMicro(quick: boolean): Promise<MicroResult[]> {
  const bench = new Bench({ time: quick ? 200 : 2000, warmupTime: quick ? 50 : 300 });
  for (const c of MICRO_CASES) {
    const endpoint = ENDPOINT_BY_PATH.get(c.endpoint)!;
    bench.add(c.name, () => {
      compileReport(buildPlan(endpoint, c.request, NOW));
    });
  }
  await bench.run();
  return bench.tasks.map((task) => {
    const result = task.result;
    if (result.state !== 'completed') throw new Error(`micro benchmark ${task.name}: ${result.state}`);
    return {
      name: task.name,
      opsPerSecond: result.throughput.mean,
      p50Us: result.latency.p50 * 1000,
      p99Us: result.latency.p99 * 1000,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await runMicro(process.argv.includes('--quick'))) {
    console.log(
      `${r.name.padEnd(45)} ${Math.round(r.opsPerSecond).toString().padStart(8)} ops/s  p50 ${r.p50Us.toFixed(1)} us  p99 ${r.p99Us.toFixed(1)} us`,
    );
  }
}
