import type { Executor } from '../store/executor.js';

/** SQL of `report_views` (migration 022); every query of a tenant's rows names its organization. */

/** The query as stored and shown: every value text, a repeated parameter a list. */
export type ReportViewQuery = Readonly<Record<string, string | readonly string[]>>;

export interface StoredReportView {
  readonly id: number;
  readonly name: string;
  readonly endpoint: string;
  readonly query: ReportViewQuery;
  readonly chart: string | null;
  readonly createdAt: string;
  readonly createdBy: string;
}

const COLUMNS = `id, name, endpoint, query, chart, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "createdAt", created_by AS "createdBy"`;

type Row = Omit<StoredReportView, 'id' | 'query'> & { id: number | bigint; query: string };
const fromRow = ({ id, query, ...row }: Row): StoredReportView => ({
  ...row,
  id: Number(id),
  query: JSON.parse(query) as ReportViewQuery,
});

/**
 * How names sort: by code point on both stores. DuckDB compares text bytewise; a PostgreSQL
 * database sorts by its default collation (often a locale's) unless told "C".
 */
export type NameOrder = 'binary' | 'collate-c';

export async function countReportViews(db: Executor, organizationId: number): Promise<number> {
  return (await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM report_views WHERE organization_id = $1`, [
    organizationId,
  ]))!.n;
}

export async function reportViewNamed(db: Executor, organizationId: number, name: string): Promise<number | undefined> {
  const row = await db.one<{ id: number | bigint }>(
    `SELECT id FROM report_views WHERE organization_id = $1 AND name = $2`,
    [organizationId, name],
  );
  return row === undefined ? undefined : Number(row.id);
}

export async function insertReportView(
  tx: Executor,
  row: {
    organizationId: number;
    name: string;
    endpoint: string;
    query: ReportViewQuery;
    chart: string | null;
    createdBy: string;
    now: Date;
  },
): Promise<StoredReportView> {
  return fromRow(
    (await tx.one<Row>(
      `INSERT INTO report_views (organization_id, name, endpoint, query, chart, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::TIMESTAMPTZ) RETURNING ${COLUMNS}`,
      [
        row.organizationId,
        row.name,
        row.endpoint,
        JSON.stringify(row.query),
        row.chart,
        row.createdBy,
        row.now.toISOString(),
      ],
    ))!,
  );
}

export async function getReportView(
  db: Executor,
  organizationId: number,
  id: number,
): Promise<StoredReportView | undefined> {
  const row = await db.one<Row>(`SELECT ${COLUMNS} FROM report_views WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
  return row === undefined ? undefined : fromRow(row);
}

export async function listReportViews(
  db: Executor,
  organizationId: number,
  page: { limit: number; offset: number },
  order: NameOrder,
): Promise<{ total: number; views: StoredReportView[] }> {
  const total = await countReportViews(db, organizationId);
  const name = order === 'collate-c' ? 'name COLLATE "C"' : 'name';
  const rows = await db.all<Row>(
    `SELECT ${COLUMNS} FROM report_views WHERE organization_id = $1 ORDER BY ${name}, id LIMIT $2 OFFSET $3`,
    [organizationId, page.limit, page.offset],
  );
  return { total, views: rows.map(fromRow) };
}

/** False when the organization has no such view. */
export async function deleteReportView(tx: Executor, organizationId: number, id: number): Promise<boolean> {
  const gone = await tx.all(`DELETE FROM report_views WHERE organization_id = $1 AND id = $2 RETURNING id`, [
    organizationId,
    id,
  ]);
  return gone.length > 0;
}
