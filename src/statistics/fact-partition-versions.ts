import type { Executor } from '../store/database.js';

/** Facts just written: one organization's days (inclusive, YYYY-MM-DD). */
export interface FactWriteScope {
  readonly organizationId: number;
  readonly from: string;
  readonly to: string;
}

/**
 * Gives each month the write touched a new version, in the writer's transaction (migration 011):
 * what the ClickHouse replicator compares with the versions it copied. Every fact write calls it
 * beside rewriteRollups (statistics sync and restatement, the generator).
 */
export async function bumpFactPartitionVersions(tx: Executor, scope: FactWriteScope): Promise<void> {
  const params = [scope.organizationId, scope.from, scope.to];
  const months = `SELECT unnest(generate_series(date_trunc('month', $2::DATE), date_trunc('month', $3::DATE), INTERVAL 1 MONTH))::DATE AS month`;
  await tx.run(
    `UPDATE fact_partition_versions SET version = nextval('fact_partition_version_seq')
      WHERE organization_id = $1 AND month IN (${months})`,
    params,
  );
  await tx.run(
    `INSERT INTO fact_partition_versions
     SELECT $1, m.month, nextval('fact_partition_version_seq') FROM (${months}) m
      WHERE NOT EXISTS (SELECT 1 FROM fact_partition_versions v WHERE v.organization_id = $1 AND v.month = m.month)`,
    params,
  );
}

/**
 * Deletes an organization's rows of a table with a retention (hours, search terms) before
 * `firstKept`, and gives the months they were in a new version, so the ClickHouse replicator
 * copies those months again instead of keeping rows DuckDB no longer has.
 */
export async function dropExpiredRows(
  tx: Executor,
  table: string,
  organizationId: number,
  firstKept: string,
): Promise<void> {
  const params = [organizationId, firstKept];
  const oldest = await tx.one<{ day: string | null }>(
    `SELECT strftime(min(day), '%Y-%m-%d') AS day FROM ${table} WHERE organization_id = $1 AND day < $2::DATE`,
    params,
  );
  if (oldest?.day == null) return;
  await tx.run(`DELETE FROM ${table} WHERE organization_id = $1 AND day < $2::DATE`, params);
  await bumpFactPartitionVersions(tx, { organizationId, from: oldest.day, to: firstKept });
}
