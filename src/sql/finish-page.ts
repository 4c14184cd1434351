import { statisticOf } from '../catalog/statistics.js';
import type { CompiledQuery } from './compiled-query.js';
import {
  formulaColumn,
  formulaOutput,
  segmentColumn,
  statisticColumn,
  statisticOutput,
} from './expressions.js';
import type { ReportQuery } from './report-query.js';
import { filteredRows, orderBy, orderKeys } from './report-rows.js';

export const TOTAL_COLUMN = '__total';

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
