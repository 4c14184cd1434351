import { statisticOf } from '../catalog/statistics.js';
import type { Binder } from './binder.js';
import type { NamedColumn } from './dialect.js';
import { formulaOutput, segmentColumn, statisticOutput } from './expressions.js';
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
