import { statisticOf } from '../catalog/statistics.js';
import type { CompiledQuery } from './compiled-query.js';
import { ESTIMATE_COLUMNS, estimateAggregates } from './finish-estimates.js';
import {
  formulaColumn,
  formulaOutput,
  segmentColumn,
  statisticColumn,
  statisticOutput,
  sumColumn,
} from './expressions.js';
import { unionLength, type ReportQuery } from './report-query.js';
import { filteredRows, orderBy, orderKeys } from './report-rows.js';

export const TOTAL_COLUMN = '__total';
/** Totals query: the distinct currencies of the summed rows, sorted, comma-joined (null without rows). */
export const CURRENCIES_COLUMN = '__currencies';

/** One page of rows with the statistics (st_i), formulas (fm_i) and the result's row count as a window (__total). */
export function finishPage(query: ReportQuery): CompiledQuery {
  const { plan, dialect: d, level } = query;
  const { binder, where } = filteredRows(query);
  const order = orderKeys(query, binder);
  const outputs = [
    ...plan.statistics.map((name, i) => [`${statisticOutput(statisticOf(name), 'r', d)}`, statisticColumn(i)] as const),
    ...plan.formulas.map((f, i) => [formulaOutput(f, { plan, dialect: d, binder }), formulaColumn(i)] as const),
  ];
  const has = (embed: string) => (plan.embed as readonly string[]).includes(embed);
  // Only what the response shows: converting unused columns (the DECIMAL sums above all) into JS
  // values cost more main-thread time than the rest of a small report.
  const quoted = (name: string) => [name, `r.${d.quote(name)}`] as const;
  const plain = (name: string) => [name, `r.${name}`] as const;
  const shown = [
    ...level.rowKeys.map(quoted),
    ...(query.labelled ? [plain('label_value')] : []),
    ...plan.segments.map((_, i) => plain(segmentColumn(i))),
    ...(has('customFields') ? Array.from({ length: 30 }, (_, i) => plain(`field${i + 1}`)) : []),
    ...(has('images') ? [quoted('__images')] : []),
    ...(has('specificFields') ? [quoted('__specificFields'), quoted('adPlatformAccountType')] : []),
  ];
  // adPlatformAccountType is a row key of the lower levels and specificFields reads it too: once.
  const selected = [...new Map(shown).entries()];
  const sql = `${query.ctes}
    SELECT ${selected.map(([, sql]) => sql).join(', ')}${outputs.map(([sql, name]) => `, ${sql} AS ${name}`).join('')}, count(*) OVER () AS ${TOTAL_COLUMN}
      FROM report_rows r${where}
     ORDER BY ${orderBy(order)}
     LIMIT ${binder.bind(plan.limit, 'bigint')} OFFSET ${binder.bind(plan.offset, 'bigint')}`;
  return {
    sql,
    params: binder.params,
    columns: [...selected.map(([name]) => name), ...outputs.map(([, name]) => name), TOTAL_COLUMN],
  };
}

/**
 * Totals over the whole filtered result: the statistics of the summed sums, never a sum of ratios.
 * Reach of the whole result is that of the union of its buckets' runs, not the sum of their reach.
 * The rows' currencies say whether the money sums mean anything (one currency) or not (several).
 */
export function finishTotals(query: ReportQuery): CompiledQuery | undefined {
  const { plan, dialect: d } = query;
  if (!plan.totals) return undefined;
  const { binder, where } = filteredRows(query);
  const onBucket = ['fr.id = u.entity_id', ...query.segmentNames.map((c) => `fr.${c} = u.${c}`)].join(' AND ');
  const totalReach = unionLength(d.semiJoin('runs u', 'filtered fr', onBucket), '', d);
  const estimates = query.tracksEstimates ? ESTIMATE_COLUMNS : [];
  const sums = query.rowMeasures.map((m) =>
    m === 'reach' ? `(${totalReach}) AS ${sumColumn(m)}` : `coalesce(sum(${sumColumn(m)}), 0) AS ${sumColumn(m)}`,
  );
  const sql = `${query.ctes}, filtered AS (SELECT * FROM report_rows r${where})
       SELECT ${plan.statistics.map((name, i) => `${statisticOutput(statisticOf(name), 'r', d)} AS ${statisticColumn(i)}`).join(', ')}, r.${CURRENCIES_COLUMN}${estimates.map((c) => `, r.${c}`).join('')}
         FROM (SELECT ${sums.join(', ')},
                      ${d.stringAgg('currency', ',', { distinct: true, orderBy: 'currency' })} AS ${CURRENCIES_COLUMN}${
                        query.tracksEstimates
                          ? estimateAggregates(d, 'filtered', true)
                              .map((sql, i) => `, ${sql} AS ${ESTIMATE_COLUMNS[i]}`)
                              .join('')
                          : ''
                      } FROM filtered) r`;
  return {
    sql,
    params: binder.params,
    columns: [...plan.statistics.map((_, i) => statisticColumn(i)), CURRENCIES_COLUMN, ...estimates],
  };
}
