import type { Executor } from '../../store/database.js';

/** A markup period as the API shows it; endDate null is open-ended. */
export interface Markup {
  readonly id: number;
  readonly accountId: number;
  readonly rate: number;
  readonly startDate: string;
  readonly endDate: string | null;
}

const COLUMNS = `id, account_id AS "accountId", rate::DOUBLE AS rate, strftime(start_date, '%Y-%m-%d') AS "startDate", strftime(end_date, '%Y-%m-%d') AS "endDate"`;

/** One page of an account's markups, by start date then id, plus the total over all pages. */
export async function listMarkups(
  db: Executor,
  organizationId: number,
  accountId: number,
  page: { limit: number; offset: number },
): Promise<{ total: number; markups: Markup[] }> {
  const where = 'organization_id = $1 AND account_id = $2';
  const total = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM markups WHERE ${where}`, [
    organizationId,
    accountId,
  ]);
  const markups = await db.all<Markup>(
    `SELECT ${COLUMNS} FROM markups WHERE ${where} ORDER BY start_date, id LIMIT $3 OFFSET $4`,
    [organizationId, accountId, page.limit, page.offset],
  );
  return { total: total?.n ?? 0, markups };
}

/** One markup of the account, or undefined. */
export function getMarkup(
  db: Executor,
  organizationId: number,
  accountId: number,
  id: number,
): Promise<Markup | undefined> {
  return db.one<Markup>(`SELECT ${COLUMNS} FROM markups WHERE organization_id = $1 AND account_id = $2 AND id = $3`, [
    organizationId,
    accountId,
    id,
  ]);
}

/**
 * The account's markups whose period shares at least one day with [startDate, endDate] (both
 * inclusive; a null end is open). A period ending 2026-01-31 and one starting 2026-02-01 share none.
 */
export function overlappingMarkups(
  db: Executor,
  organizationId: number,
  accountId: number,
  startDate: string,
  endDate: string | null,
): Promise<Markup[]> {
  return db.all<Markup>(
    `SELECT ${COLUMNS} FROM markups
     WHERE organization_id = $1 AND account_id = $2
       AND start_date <= COALESCE($4::DATE, 'infinity'::DATE) AND COALESCE(end_date, 'infinity'::DATE) >= $3::DATE
     ORDER BY start_date, id`,
    [organizationId, accountId, startDate, endDate],
  );
}

/** The rate goes in as its decimal text, so DECIMAL(9,6) stores exactly what the client sent. */
export async function insertMarkup(
  tx: Executor,
  organizationId: number,
  accountId: number,
  markup: Omit<Markup, 'id' | 'accountId'>,
): Promise<Markup> {
  const row = await tx.one<Markup>(
    `INSERT INTO markups (organization_id, account_id, rate, start_date, end_date) VALUES ($1, $2, $3::DECIMAL(9,6), $4::DATE, $5::DATE) RETURNING ${COLUMNS}`,
    [organizationId, accountId, markup.rate.toFixed(6), markup.startDate, markup.endDate],
  );
  return row!;
}

/** The deleted markup's period; undefined when the account has no such markup in this organization (nothing is deleted then). */
export async function deleteMarkup(
  tx: Executor,
  organizationId: number,
  accountId: number,
  id: number,
): Promise<{ startDate: string; endDate: string | null } | undefined> {
  return tx.one<{ startDate: string; endDate: string | null }>(
    `DELETE FROM markups WHERE organization_id = $1 AND account_id = $2 AND id = $3
     RETURNING strftime(start_date, '%Y-%m-%d') AS "startDate", strftime(end_date, '%Y-%m-%d') AS "endDate"`,
    [organizationId, accountId, id],
  );
}
