import { levelOf } from '../../catalog/levels.js';
import { operandsOf, type ReportPlan } from '../../planner/report-plan.js';
import { Binder } from '../binder.js';
import type { CompiledQuery } from '../compiled-query.js';
import { reportEntities } from '../report-query.js';
import { duckdbDialect } from './duckdb-dialect.js';

/**
 * What a report's scope holds beside its figures, for its warnings (issue 36). DuckDB only,
 * whatever engine serves the report: entities and labels live in the system of record. Both
 * statements read entity tables only (no facts), scoped to the organization as `$1`.
 */

/** The label names the plan's filter names literally (`labels.<name>`), in first-seen order. */
export function filteredLabelNames(plan: ReportPlan): string[] {
  const conditions = [plan.entityFilter, plan.bucketFilter, plan.factFilter].filter((c) => c !== undefined);
  const names = conditions.flatMap(operandsOf).flatMap((op) => (op.kind === 'label' ? [op.name] : []));
  return [...new Set(names)];
}

/**
 * The organization's label names of the plan's level (account or campaign labels) that equal one
 * of `names` ignoring case: the exact ones say a name exists, the others how it is spelt. undefined
 * when there is nothing to check (no name, or a level without labels).
 */
export function compileLabelNames(plan: ReportPlan, names: readonly string[]): CompiledQuery | undefined {
  const labels = levelOf(plan.level).labels;
  if (labels === undefined || names.length === 0) return undefined;
  const d = duckdbDialect;
  const binder = Binder.start(d);
  const org = binder.bind(plan.organizationId, 'bigint');
  const wanted = names.map((name) => `lower(${binder.bind(name, 'varchar')})`).join(', ');
  const sql = `SELECT DISTINCT lb.name AS name FROM ${d.quote(labels.table)} lb
      JOIN ${d.quote(labels.owner)} o ON o.id = lb.${d.quote(labels.key)}
     WHERE o.organization_id = ${org} AND lower(lb.name) IN (${wanted})
     ORDER BY 1`;
  return { sql, params: binder.params, columns: ['name'] };
}

/**
 * The distinct currencies of the report's entities (after the organization, the endpoint's
 * platform, `name` and the entity filters): the currencies its rows are in, unless a filter on
 * statistics drops every row of one.
 */
export function compileScopeCurrencies(plan: ReportPlan): CompiledQuery {
  const d = duckdbDialect;
  const binder = Binder.start(d);
  const entities = reportEntities(plan, d, binder);
  return {
    sql: `SELECT DISTINCT e.currency AS currency FROM (${entities}) e WHERE e.currency IS NOT NULL ORDER BY 1`,
    params: binder.params,
    columns: ['currency'],
  };
}
