import type { Database } from '../store/database.js';

/** A markup period as /reporting/v0/markups shows it, with the account it belongs to. */
export interface MarkupPeriod {
  readonly id: number;
  readonly accountId: number;
  readonly accountName: string;
  readonly currency: string;
  readonly rate: number;
  readonly startDate: string;
  /** null: open-ended. */
  readonly endDate: string | null;
}

export interface MarkupPeriodQuery {
  readonly organizationId: number;
  /** Periods sharing at least one day with [from, to]; all periods when absent. */
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly accountIds: readonly number[] | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** The organization's markup periods by account, start date and id; the total counts all pages. */
export async function listMarkupPeriods(db: Database, query: MarkupPeriodQuery): Promise<{ total: number; markups: MarkupPeriod[] }> {
  const where = [
    'm.organization_id = $1::BIGINT',
    `($2::DATE IS NULL OR coalesce(m.end_date, DATE '9999-12-31') >= $2::DATE)`,
    '($3::DATE IS NULL OR m.start_date <= $3::DATE)',
    '($4::VARCHAR[] IS NULL OR m.account_id IN (SELECT unnest($4::VARCHAR[])::BIGINT))',
  ].join(' AND ');
  const params = [query.organizationId, query.from ?? null, query.to ?? null, query.accountIds ? query.accountIds.map(String) : null];
  return db.read(async (r) => {
    const total = await r.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM markups m WHERE ${where}`, params);
    const markups = await r.all<MarkupPeriod>(
      `SELECT m.id, m.account_id AS "accountId", a.name AS "accountName", a.currency, m.rate::DOUBLE AS rate,
              strftime(m.start_date, '%Y-%m-%d') AS "startDate", strftime(m.end_date, '%Y-%m-%d') AS "endDate"
         FROM markups m JOIN accounts a ON a.id = m.account_id
        WHERE ${where}
        ORDER BY m.account_id, m.start_date, m.id
        LIMIT $5::BIGINT OFFSET $6::BIGINT`,
      [...params, query.limit, query.offset],
    );
    return { total: total?.n ?? 0, markups };
  });
}
