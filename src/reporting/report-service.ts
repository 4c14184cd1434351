import type { ReportEndpoint } from '../catalog/endpoints.js';
import { buildPlan } from '../planner/build-plan.js';
import type { ReportPlan, ReportRequest } from '../planner/report-plan.js';
import type { ExportService, ExportStream } from './export-stream.js';
import { compileJsonPage, compileReport, formulaColumn, segmentColumn, statisticColumn, TOTAL_COLUMN, type ExportFormat } from '../sql/compile-report.js';
import type { Database, Executor } from '../store/database.js';
import type { Row } from '../store/sql-values.js';

/** Pages asked with a larger limit are rendered as JSON text by DuckDB, not built as JS objects. */
export const LARGE_PAGE = 1000;

export interface ReportPage {
  /** The rows, or for a large page `rowsJson`: the same rows as one JSON array text. */
  readonly rows: Record<string, unknown>[];
  readonly rowsJson?: string | undefined;
  /** Rows of the whole result, all pages. */
  readonly total: number;
  readonly totals: Record<string, number | null> | undefined;
}

/** runReport: validated request -> plan -> SQL -> rows in the shape of supplement 5. */
export class ReportService {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date,
    private readonly exports: ExportService,
  ) {}

  private largePage(plan: ReportPlan): Promise<ReportPage> {
    const compiled = compileJsonPage(plan);
    const totalsQuery = plan.totals ? compileReport(plan) : undefined;
    return this.db.read(async (r) => {
      const page = (await r.one<{ rows: string; total: number | bigint }>(compiled.sql, compiled.params))!;
      const totals = totalsQuery?.totalsSql === undefined ? undefined : statisticsOf(plan, (await r.all(totalsQuery.totalsSql, totalsQuery.totalsParams))[0] ?? {});
      const total = Number(page.total) > 0 ? Number(page.total) : await countAll(r, plan);
      return { rows: [], rowsJson: page.rows, total, totals };
    });
  }

  /** Rows of the whole result (what X-TotalCount says), for an export's progress. */
  async count(endpoint: ReportEndpoint, request: ReportRequest): Promise<number> {
    const plan = buildPlan(endpoint, { ...request, limit: 1, offset: 0, totals: false }, this.now());
    return this.db.read((r) => countAll(r, { ...plan, offset: 1 }));
  }

  /** The whole result (or the asked page) as CSV, NDJSON or Parquet, rendered and streamed by DuckDB. */
  async export(endpoint: ReportEndpoint, request: ReportRequest, format: ExportFormat): Promise<{ plan: ReportPlan; stream: ExportStream }> {
    const plan = buildPlan(endpoint, request, this.now());
    return { plan, stream: await this.exports.open(plan, format) };
  }

  async run(endpoint: ReportEndpoint, request: ReportRequest): Promise<ReportPage> {
    const plan = buildPlan(endpoint, request, this.now());
    if (plan.limit > LARGE_PAGE) return this.largePage(plan);
    const compiled = compileReport(plan);
    return this.db.read(async (r) => {
      const found = await r.all(compiled.sql, compiled.params);
      const totals = compiled.totalsSql === undefined ? undefined : statisticsOf(plan, (await r.all(compiled.totalsSql, compiled.totalsParams))[0] ?? {});
      const rows = found.map((row) => shapeRow(plan, row));
      await embedLabels(r, plan, rows);
      // An empty page past the end still tells the total: count it when the page has no row to carry it.
      const total = found.length > 0 ? Number(found[0]![TOTAL_COLUMN]) : await countAll(r, plan);
      return { rows, total, totals };
    });
  }
}

async function countAll(r: Executor, plan: ReportPlan): Promise<number> {
  if (plan.offset === 0) return 0;
  const firstRow = compileReport({ ...plan, offset: 0, limit: 1, totals: false });
  const rows = await r.all(firstRow.sql, firstRow.params);
  return rows.length === 0 ? 0 : Number(rows[0]![TOTAL_COLUMN]);
}

function statisticsOf(plan: ReportPlan, row: Row): Record<string, number | null> {
  return Object.fromEntries(plan.statistics.map((s, i) => [s.name, (row[statisticColumn(i)] as number | null) ?? null]));
}

function shapeRow(plan: ReportPlan, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of plan.level.rowKeys) out[key] = row[key] ?? null;
  if (plan.campaignLabel !== undefined) out.campaignLabel = { name: plan.campaignLabel.name, value: row.label_value };
  if (plan.segments.length > 0) out.segments = Object.fromEntries(plan.segments.map((s, i) => [s.key, row[segmentColumn(i)]]));
  out.statistics = statisticsOf(plan, row);
  if (plan.formulas.length > 0) out.formulas = Object.fromEntries(plan.formulas.map((f, i) => [f.name, (row[formulaColumn(i)] as number | null) ?? null]));
  if (plan.embed.has('customFields')) {
    out.customFields = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field${i + 1}`, row[`field${i + 1}`] ?? null]));
  }
  if (plan.embed.has('images')) out.images = row.__images ?? [];
  if (plan.embed.has('specificFields')) {
    // Ad-type-specific fields exist on FACEBOOK ads only (spec 4.3).
    out.specificFields = row.adPlatformAccountType === 'FACEBOOK' && typeof row.__specificFields === 'string' ? (JSON.parse(row.__specificFields) as unknown) : null;
  }
  return out;
}

/** Client labels of the page's entities in one query; system labels (sys.*) are not the client's. */
async function embedLabels(r: Executor, plan: ReportPlan, rows: Record<string, unknown>[]): Promise<void> {
  const labels = plan.level.labels;
  if (!plan.embed.has('labels') || !labels || rows.length === 0) return;
  const found = await r.all<{ id: number; name: string; value: string }>(
    `SELECT ${labels.key} AS id, name, value FROM ${labels.table}
      WHERE ${labels.key} IN (SELECT unnest($1::VARCHAR[])::BIGINT) AND name NOT LIKE 'sys.%' ORDER BY name`,
    [rows.map((row) => String(row.id))],
  );
  const byId = new Map<number, Record<string, string>>();
  for (const label of found) (byId.get(label.id) ?? byId.set(label.id, {}).get(label.id)!)[label.name] = label.value;
  for (const row of rows) row.labels = byId.get(row.id as number) ?? {};
}

