import type { ReportEndpoint } from '../catalog/endpoints.js';
import { timed, timedSync } from '../runtime/request-timing.js';
import { readsMoney, statisticOf } from '../catalog/statistics.js';
import { buildPlan } from '../planner/build-plan.js';
import { reportSlots } from '../planner/report-weight.js';
import { operandsOf, type PlannedFormula, type ReportPlan, type ReportRequest } from '../planner/report-plan.js';
import { buildCallDetailsPlan, type CallDetailsPlan } from '../planner/call-details-plan.js';
import { listCallDetails, type CallDetail, type CallDetailsRequest } from './call-details.js';
import { PageCache } from './page-cache.js';
import { ReportFreshness, type Validator } from './report-freshness.js';
import { listMarkupPeriods, type MarkupPeriod, type MarkupPeriodQuery } from './markup-periods.js';
import type { ExportService, ExportStream } from './export-stream.js';
import {
  changeColumn,
  changeFormulaColumn,
  comparedFormulaColumn,
  comparedStatisticColumn,
  formulaColumn,
  compileReport,
  CURRENCIES_COLUMN,
  segmentColumn,
  ESTIMATE_COLUMNS,
  statisticColumn,
  TOTAL_COLUMN,
  type CompileOptions,
  type ExportFormat,
} from '../sql/compile-report.js';
import { estimatedFxRates, FxEstimateCollector, mixedCurrencies, type ReportWarning } from './report-warnings.js';
import type { Store } from '../store/store.js';
import type { SqlDialect } from '../sql/dialect.js';
import {
  DuckDbReportEngine,
  type ReportEngine,
  type ReportEngineSelector,
  type ReportReader,
  type ReportRows,
} from './report-engine.js';
import type { Row } from '../store/sql-values.js';
import { FreshnessReader, incompleteData, type DataFreshness } from './data-freshness.js';
import { ScopeWarnings } from './scope-warnings.js';

/** A page's rows as JSON text in parts (DuckDB renders them), read out of DuckDB's memory one at a time. */
export interface PageParts {
  readonly count: number;
  /** UTF-8 bytes of all parts. */
  readonly byteLength: number;
  /** Part i: the JSON texts of its rows, shaped as supplement 5 says; laid end to end, the parts are the JSON array's content. */
  part(i: number): Uint8Array<ArrayBuffer>;
  /** Lets DuckDB's memory go; the sender calls it when done or abandoned. */
  release(): void;
}

/**
 * `totals=true`: the statistics over the whole filtered result and the one currency they are in
 * (null: none, or several), the formulas over the same sums in `formulas`; with compare,
 * `comparison` and `change` of the same statistics and formulas.
 */
export type ReportTotals = { readonly currency: string | null } & Readonly<Record<string, TotalsValue>>;

/** A member of the totals: a statistic, the currency, or a group of them (`formulas`, `comparison`, `change`). */
export type TotalsValue = number | string | null | { readonly [name: string]: TotalsValue };

export interface ReportPage {
  readonly rows: PageParts;
  /** Rows of the whole result, all pages. */
  readonly total: number;
  readonly totals: ReportTotals | undefined;
  /** `totals=segments`: the totals of each segment bucket, `segments` first, in segment order. */
  readonly segmentTotals: readonly ReportTotals[] | undefined;
  /** What the report says beside its rows (report-warnings.ts), freshness last; empty when there is nothing to say. */
  readonly warnings: readonly ReportWarning[];
}

/** A request made into its plan once: what its validator is computed from, then what runs. */
export interface PreparedReport {
  readonly endpoint: ReportEndpoint;
  readonly plan: ReportPlan;
  /** The engine chosen for it (X-Report-Engine); all of its statements run there. */
  readonly engine: ReportEngine;
  /** How complete its data is (`withFreshness`): folded into its validator, shown in meta and warnings. */
  readonly freshness?: DataFreshness | undefined;
}

/** A call-details request made into its plan once (the default range resolved), likewise. */
export interface PreparedCallDetails {
  readonly plan: CallDetailsPlan;
  readonly engine: ReportEngine;
}

export { REPORT_ENGINE_HEADER } from './report-engine.js';

export interface PreparedMarkups {
  readonly request: MarkupPeriodQuery;
  readonly engine: ReportEngine;
}

/** runReport: validated request -> plan -> SQL -> rows in the shape of supplement 5. */
export class ReportService {
  /** ETags from the data versions, and the page cache (none unless the caller gives one: the CLI's export). */
  readonly freshness: ReportFreshness;

  /** What `withFreshness` reads, with the sync states it keeps. */
  private readonly dataFreshness: FreshnessReader;

  /** Warnings about the request's labels and money sort (entity tables only). */
  private readonly scope: ScopeWarnings;

  private readonly versions: Store['versions'];

  constructor(
    db: Store,
    private readonly now: () => Date,
    exports: ExportService,
    pages: PageCache = new PageCache(0),
    /** `rollups: false` (ADREPORT_ROLLUPS=false): every report reads the facts. */
    private readonly compileOptions: CompileOptions = {},
    /** Which engine runs an organization's reports; DuckDB alone unless ClickHouse is configured. */
    private readonly engines: ReportEngineSelector = new DuckDbReportEngine(db, exports),
  ) {
    this.versions = db.versions;
    this.freshness = new ReportFreshness(db.versions, pages);
    this.dataFreshness = new FreshnessReader(db);
    this.scope = new ScopeWarnings(db);
  }

  /** The engine that answers the organization's reports now (a 503 when it is away). */
  engineFor(organizationId: number): ReportEngine {
    return this.engines.engineFor(organizationId);
  }

  /**
   * Validates and plans; bad parameters throw their 400 here, before anything is looked up or run.
   * `now` resolves presets and the default range (a report job's rerun uses its creation time).
   */
  prepare(endpoint: ReportEndpoint, request: ReportRequest, now: Date = this.now()): PreparedReport {
    const plan = buildPlan(endpoint, request, now);
    return { endpoint, plan, engine: this.engineFor(plan.organizationId) };
  }

  /**
   * The report with the freshness of its platform accounts (one small DuckDB statement). It
   * changes without a data version (a sync job queued, running or ending, a sync recorded), so
   * the validator reads it: a 304 or a cached page is never older than its meta.
   */
  async withFreshness(report: PreparedReport): Promise<PreparedReport> {
    await this.follow(report.plan.organizationId);
    return { ...report, freshness: await this.dataFreshness.read(report.plan) };
  }

  /** Catches the organization's data version up with writes of other replicas, before a validator or a cache reads it. */
  follow(organizationId: number): Promise<void> {
    return this.versions.follow(organizationId);
  }

  /** The validator of a report in one format (json, csv, ndjson, parquet). */
  validator(report: PreparedReport, format: string): Validator {
    return this.freshness.validator(report.plan.organizationId, {
      kind: `report@${report.engine.name}`,
      format,
      request: report.freshness === undefined ? report.plan : { plan: report.plan, freshness: report.freshness },
    });
  }

  prepareCallDetails(request: CallDetailsRequest): PreparedCallDetails {
    const plan = buildCallDetailsPlan(request, this.now());
    return { plan, engine: this.engineFor(plan.organizationId) };
  }

  callDetailsValidator(prepared: PreparedCallDetails): Validator {
    return this.freshness.validator(prepared.plan.organizationId, {
      kind: `call-details@${prepared.engine.name}`,
      format: 'json',
      request: prepared.plan,
    });
  }

  prepareMarkups(request: MarkupPeriodQuery): PreparedMarkups {
    return { request, engine: this.engineFor(request.organizationId) };
  }

  /** Markup queries have no default range and nothing to resolve: the query is its own normal form. */
  markupsValidator({ request, engine }: PreparedMarkups): Validator {
    return this.freshness.validator(request.organizationId, {
      kind: `markups@${engine.name}`,
      format: 'json',
      request,
    });
  }

  /**
   * One page as JSON text rendered by DuckDB, the same rows the exports write (DESIGN D3): a
   * 8,214-row keyword page spent ~200 ms of event-loop time as JS objects against a 28 ms
   * query; a 100-row campaign page costs the same either way (11.4 vs 10.9 ms).
   */
  async run({ plan, engine, freshness }: PreparedReport): Promise<ReportPage> {
    const { compiled, segmentTotalsQuery, totalsQuery } = timedSync('compile', () => {
      const report = compileReport(plan, engine.dialect, this.compileOptions);
      // totals=segments brings the totals row along: the totals statement alone only without it.
      const segmentTotalsQuery = report.segmentTotals();
      return {
        compiled: report.jsonPage(),
        segmentTotalsQuery,
        totalsQuery: segmentTotalsQuery === undefined ? report.totals() : undefined,
      };
    });
    const labels = await timed('scope', () => this.scope.labels(plan));
    // The currencies of the filtered result, when the totals read them.
    let found: string[] | undefined;
    const page = await engine.read({ organizationId: plan.organizationId, slots: reportSlots(plan) }, async (r) => {
      const parts = await r.lazy(compiled.sql, compiled.params);
      try {
        const warnings: ReportWarning[] = [];
        // Estimated conversions of the rows shown (each part says its own) and of the totals.
        const estimates = new FxEstimateCollector();
        if (compiled.columns.includes(ESTIMATE_COLUMNS[0])) {
          for (let i = 0; i < parts.rowCount; i++) estimates.add(ESTIMATE_OF_PART.map((c) => parts.get(i, c)));
        }
        let totals: ReportTotals | undefined;
        let segmentTotals: ReportTotals[] | undefined;
        if (segmentTotalsQuery !== undefined) {
          // totals=segments: the totals row first, then the buckets', from one statement.
          const [row = {}, ...buckets] = await r.all(segmentTotalsQuery.sql, segmentTotalsQuery.params);
          estimates.add(ESTIMATE_COLUMNS.map((c) => row[c]));
          totals = totalsOf(plan, row, warnings);
          found = currenciesOf(row);
          // A bucket's money is null on the rule of the totals, which already say why.
          segmentTotals = buckets.map((bucket) => ({
            segments: Object.fromEntries(
              plan.segments.map((key, i) => [key, (bucket[segmentColumn(i)] as string | number | null) ?? null]),
            ),
            ...totalsOf(plan, bucket, []),
          }));
        } else if (totalsQuery !== undefined) {
          const row = (await r.all(totalsQuery.sql, totalsQuery.params))[0] ?? {};
          estimates.add(ESTIMATE_COLUMNS.map((c) => row[c]));
          totals = totalsOf(plan, row, warnings);
          found = currenciesOf(row);
        }
        const estimated = estimates.result();
        if (estimated) warnings.push(estimatedFxRates(estimated));
        // An empty page (past the end) has no part to carry the total: count it.
        const total =
          parts.rowCount > 0
            ? Number(parts.get(0, TOTAL_OF_PART))
            : await countAll(r, plan, engine.dialect, this.compileOptions);
        return { rows: pageParts(parts), total, totals, segmentTotals, warnings };
      } catch (error) {
        parts.release();
        throw error;
      }
    });
    try {
      const sort = await timed('scope', () => this.scope.currencySort(plan, found));
      const warnings = [...page.warnings, ...(sort ? [sort] : []), ...(labels ? [labels] : [])];
      return { ...page, warnings: [...warnings, ...freshnessWarnings(freshness, plan)] };
    } catch (error) {
      page.rows.release();
      throw error;
    }
  }

  /** GET /reporting/v0/call-details: one page of calls and the total over all pages. */
  callDetails(prepared: PreparedCallDetails): Promise<{ total: number; callDetails: CallDetail[] }> {
    return listCallDetails(prepared.engine, prepared.plan);
  }

  /** GET /reporting/v0/markups: one page of markup periods and the total over all pages. */
  markups({ request, engine }: PreparedMarkups): Promise<{ total: number; markups: MarkupPeriod[] }> {
    return listMarkupPeriods(engine, request);
  }

  /** Rows of the whole result (what X-TotalCount says), for an export's progress. */
  async count(endpoint: ReportEndpoint, request: ReportRequest, now: Date = this.now()): Promise<number> {
    const plan = buildPlan(endpoint, { ...request, limit: 1, offset: 0, totals: false }, now);
    const engine = this.engineFor(plan.organizationId);
    return engine.read({ organizationId: plan.organizationId, slots: 'one' }, (r) =>
      countAll(r, { ...plan, offset: 1 }, engine.dialect, this.compileOptions),
    );
  }

  /**
   * The whole result (or the asked page) as CSV, NDJSON or Parquet, rendered and streamed by
   * DuckDB. The warnings come first (a header goes out before the body): when the plan converts
   * money, one more query over the same rows finds the days converted at estimated rates.
   */
  async export(
    { plan, engine, freshness }: PreparedReport,
    format: ExportFormat,
  ): Promise<{ plan: ReportPlan; stream: ExportStream; warnings: readonly ReportWarning[] }> {
    // One set of CTEs for the estimates and the export itself.
    const report = compileReport(plan, engine.dialect, this.compileOptions);
    const estimatesQuery = report.estimates();
    const warnings: ReportWarning[] = [];
    if (estimatesQuery) {
      const row = await engine.read({ organizationId: plan.organizationId, slots: reportSlots(plan) }, async (r) => {
        const gate = await r.one<{ estimated: boolean }>(estimatesQuery.gate.sql, estimatesQuery.gate.params);
        return gate?.estimated ? r.one(estimatesQuery.estimates.sql, estimatesQuery.estimates.params) : undefined;
      });
      const estimates = new FxEstimateCollector();
      estimates.add(ESTIMATE_COLUMNS.map((c) => row?.[c]));
      const estimated = estimates.result();
      if (estimated) warnings.push(estimatedFxRates(estimated));
    }
    const sort = await this.scope.currencySort(plan);
    if (sort) warnings.push(sort);
    const labels = await this.scope.labels(plan);
    if (labels) warnings.push(labels);
    warnings.push(...freshnessWarnings(freshness, plan));
    return { plan, stream: await engine.openExport(plan.organizationId, report.export(format), format), warnings };
  }
}

/** Columns of the JSON page's rows (finishJsonPage). */
const PART = 0;
const BYTES_OF_PART = 1;
const TOTAL_OF_PART = 2;
const ESTIMATE_OF_PART = [3, 4, 5] as const;

function pageParts(rows: ReportRows): PageParts {
  let byteLength = 0;
  for (let i = 0; i < rows.rowCount; i++) byteLength += Number(rows.get(i, BYTES_OF_PART));
  return {
    count: rows.rowCount,
    byteLength,
    // DuckDB gives the part as a BLOB, ClickHouse as text.
    part: (i) => {
      const part = rows.get(i, PART);
      return typeof part === 'string' ? new Uint8Array(Buffer.from(part)) : (part as Uint8Array<ArrayBuffer>);
    },
    release: () => rows.release(),
  };
}

async function countAll(
  r: ReportReader,
  plan: ReportPlan,
  dialect: SqlDialect,
  options: CompileOptions,
): Promise<number> {
  if (plan.offset === 0) return 0;
  const firstRow = compileReport({ ...plan, offset: 0, limit: 1, totals: false }, dialect, options).page();
  const rows = await r.all(firstRow.sql, firstRow.params);
  return rows.length === 0 ? 0 : Number(rows[0]![TOTAL_COLUMN]);
}

/**
 * The totals row as the body shows it. Money of several currencies has no sum: without `currency`,
 * totals over rows in more than one currency keep their counts but null their money statistics,
 * the ratios over money and the formulas reading money, and say why (mixed_currencies). Formulas
 * go in `formulas` (their names may be statistic names), with compare in `comparison.formulas`
 * and `change.formulas` too.
 */
function totalsOf(plan: ReportPlan, row: Row, warnings: ReportWarning[]): ReportTotals {
  const found = currenciesOf(row);
  const mixed = plan.currency === undefined && found.length > 1;
  if (mixed) warnings.push(mixedCurrencies(found));
  const currency = plan.currency ?? (found.length === 1 ? found[0]! : null);
  const valueOf = (column: string, money: boolean) =>
    mixed && money ? null : ((row[column] as number | null) ?? null);
  const statistics = (column: (i: number) => string) =>
    Object.fromEntries(plan.statistics.map((name, i) => [name, valueOf(column(i), readsMoney(statisticOf(name)))]));
  const formulas = (column: (i: number) => string) =>
    plan.formulas.length === 0
      ? {}
      : {
          formulas: Object.fromEntries(plan.formulas.map((f, i) => [f.name, valueOf(column(i), formulaReadsMoney(f))])),
        };
  return {
    currency,
    ...statistics(statisticColumn),
    ...formulas(formulaColumn),
    ...(plan.compare
      ? {
          comparison: { ...statistics(comparedStatisticColumn), ...formulas(comparedFormulaColumn) },
          change: { ...statistics(changeColumn), ...formulas(changeFormulaColumn) },
        }
      : {}),
  } as ReportTotals;
}

/** The distinct currencies of the rows a totals row sums, sorted. */
function currenciesOf(row: Row): string[] {
  return typeof row[CURRENCIES_COLUMN] === 'string' ? (row[CURRENCIES_COLUMN] as string).split(',') : [];
}

/** A formula over a money statistic or a ratio over money: meaningless summed over several currencies. */
function formulaReadsMoney(formula: PlannedFormula): boolean {
  return operandsOf(formula.value).some((op) => op.kind === 'statistic' && readsMoney(statisticOf(op.name)));
}

/** incomplete_data when the range ends after the complete day (none without freshness). */
function freshnessWarnings(freshness: DataFreshness | undefined, plan: ReportPlan): ReportWarning[] {
  const warning = freshness && incompleteData(freshness, plan.to);
  return warning ? [warning] : [];
}
