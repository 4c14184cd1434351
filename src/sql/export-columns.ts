import { statisticOf } from '../catalog/statistics.js';
import type { Binder } from './binder.js';
import type { NamedColumn } from './dialect.js';
import {
  changeSql,
  formulaOutput,
  segmentColumn,
  statisticOutput,
  statisticSql,
  valueSql,
} from './expressions.js';
import type { ReportQuery } from './report-query.js';

/**
 * The columns of a report row as [JSON path, SQL], in the order of the JSON form's rows: the
 * JSON page and NDJSON nest them (`nested`: labels, images and specificFields are JSON values,
 * flagged so), CSV and Parquet keep them flat with those as JSON text.
 */
export function rowColumns(query: ReportQuery, binder: Binder, nested: boolean): NamedColumn[] {
  const { plan, dialect: d, level } = query;
  const json = (sql: string) => (nested ? sql : d.jsonText(`(${sql})`));
  const q = d.quote;
  const has = (embed: string) => (plan.embed as readonly string[]).includes(embed);
  const labels = level.labels;
  return [
    ...level.rowKeys.map((key): NamedColumn => [key, `r.${q(key)}`]),
    ...(query.labelled
      ? ([
          ['campaignLabel.name', binder.bind(plan.campaignLabel!.name, 'varchar')],
          ['campaignLabel.value', 'r.label_value'],
        ] as NamedColumn[])
      : []),
    ...plan.segments.map((key, i): NamedColumn => [`segments.${key}`, `r.${segmentColumn(i)}`]),
    ...plan.statistics.map((name): NamedColumn => [`statistics.${name}`, statisticOutput(statisticOf(name), 'r', d)]),
    ...plan.formulas.map((f): NamedColumn => [`formulas.${f.name}`, formulaOutput(f, { plan, dialect: d, binder })]),
    ...(plan.compare ? comparedColumns(query, binder) : []),
    ...(has('customFields')
      ? Array.from({ length: 30 }, (_, i): NamedColumn => [`customFields.field${i + 1}`, `r.field${i + 1}`])
      : []),
    ...(has('images')
      ? [['images', json(`coalesce(${d.toJson(`r.${q('__images')}`)}, ${d.emptyJsonArray})`), nested] as NamedColumn]
      : []),
    ...(has('specificFields')
      ? [
          [
            'specificFields',
            json(
              `CASE WHEN r.${q('adPlatformAccountType')} = 'FACEBOOK' THEN ${d.asJson(`r.${q('__specificFields')}`)} END`,
            ),
            nested,
          ] as NamedColumn,
        ]
      : []),
    ...(has('labels') && labels
      ? [
          [
            'labels',
            json(
              `coalesce((SELECT ${d.jsonGroupObject('lb.name', 'lb.value')} FROM ${labels.table} lb WHERE lb.${labels.key} = r.id AND lb.name NOT LIKE 'sys.%'), ${d.emptyJsonObject})`,
            ),
            nested,
          ] as NamedColumn,
        ]
      : []),
  ];
}

/**
 * With compare: `comparison.statistics.<name>` and `comparison.formulas.<name>` (the same outputs
 * over the compared range's sums), then `change.statistics.<name>` and `change.formulas.<name>`
 * ((current - compared) / compared, a double; null over a compared 0 or null).
 */
export function comparedColumns(query: ReportQuery, binder: Binder, alias = 'r'): NamedColumn[] {
  const { plan, dialect: d } = query;
  const comparison = { plan, dialect: d, binder, period: 'comparison' as const };
  const current = { plan, dialect: d, binder };
  return [
    ...plan.statistics.map((name): NamedColumn => [
      `comparison.statistics.${name}`,
      statisticOutput(statisticOf(name), alias, d, 'comparison'),
    ]),
    ...plan.formulas.map((f): NamedColumn => [`comparison.formulas.${f.name}`, formulaOutput(f, comparison)]),
    ...plan.statistics.map((name): NamedColumn => {
      const statistic = statisticOf(name);
      return [
        `change.statistics.${name}`,
        changeSql(statisticSql(statistic, alias, d), statisticSql(statistic, alias, d, 'comparison'), d),
      ];
    }),
    ...plan.formulas.map((f): NamedColumn => [
      `change.formulas.${f.name}`,
      changeSql(valueSql(f.value, alias, current), valueSql(f.value, alias, comparison), d),
    ]),
  ];
}
