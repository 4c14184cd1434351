import { segmentOf } from '../catalog/segments.js';
import type { Binder } from './binder.js';
import { conditionSql, segmentColumn, valueSql } from './expressions.js';
import type { ReportQuery } from './report-query.js';

/** An ORDER BY key: its SQL and its direction (with NULLS placement). */
export type OrderKey = readonly [sql: string, direction: string];

/** The rows a finisher selects from: report_rows past the bucket filter, in the values of its own statement. */
export interface FilteredRows {
  readonly binder: Binder;
  /** ` WHERE ...` or ''. */
  readonly where: string;
}

/** A statement of its own on the shared CTEs: a copy of their values, then the bucket filter's. */
export function filteredRows(query: ReportQuery): FilteredRows {
  const binder = query.binder.fork();
  const filter = query.plan.bucketFilter;
  return {
    binder,
    where: filter ? ` WHERE ${conditionSql(filter, 'r', { plan: query.plan, dialect: query.dialect, binder })}` : '',
  };
}

/**
 * The report's order: the asked sort keys, then (supplement 1 and 5) by id unless a sort says
 * otherwise, ties by id; then the buckets of an entity in segment order. A segment sorts by its
 * own order where it has one (DayOfWeek: MONDAY..SUNDAY), in sorts and tie-breaks alike.
 */
export function orderKeys(query: ReportQuery, binder: Binder): OrderKey[] {
  const { plan, dialect: d } = query;
  const segmentOrder = (i: number) => d.segmentOrder(segmentOf(plan.segments[i]!), `r.${segmentColumn(i)}`);
  return [
    ...plan.sort.map((key): OrderKey => [
      key.value.kind === 'ref' && key.value.operand.kind === 'segment'
        ? segmentOrder(plan.segments.indexOf(key.value.operand.key))
        : valueSql(key.value, 'r', { plan, dialect: d, binder }),
      `${key.descending ? 'DESC' : 'ASC'} NULLS LAST`,
    ]),
    ['r.id', 'ASC'],
    ...(query.labelled ? [['r.label_value', 'ASC'] as const] : []),
    ...plan.segments.map((_, i): OrderKey => [segmentOrder(i), 'ASC']),
  ];
}

export const orderBy = (keys: readonly OrderKey[]) => keys.map(([sql, direction]) => `${sql} ${direction}`).join(', ');
