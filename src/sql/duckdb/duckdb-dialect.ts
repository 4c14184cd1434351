import type { SegmentDefinition, SegmentKey } from '../../catalog/segments.js';
import { assertNever } from '../../shared/assert-never.js';
import type { ExportFormat } from '../compiled-query.js';
import { columnTree, type ColumnNode } from '../column-tree.js';
import type { NamedColumn, SqlDialect, SqlType } from '../dialect.js';

const TYPE_NAMES: Readonly<Record<SqlType, string>> = {
  bigint: 'BIGINT',
  integer: 'INTEGER',
  double: 'DOUBLE',
  varchar: 'VARCHAR',
  date: 'DATE',
  boolean: 'BOOLEAN',
};
const FACT_ENUM_TYPES = { device: 'device_type', network: 'network_type' } as const;
const TEXT_FUNCTIONS = { contains: 'contains', startsWith: 'starts_with', endsWith: 'ends_with' } as const;

/**
 * COPY options per format. NDJSON goes through DuckDB's CSV writer, one column of `to_json` text
 * written as it is: no quoting at all (QUOTE ''), because the writer quotes a value holding #
 * (its comment character) whatever quote it is given, and a quoted line is no JSON; the
 * delimiter is a control character JSON text never holds raw (to_json escapes it). 992k rows/s
 * against 805k for COPY ... (FORMAT json) on the same 2 M rows, same bytes.
 */
export const COPY_OPTIONS: Readonly<Record<ExportFormat, string>> = {
  csv: 'FORMAT csv, HEADER true',
  ndjson: "FORMAT csv, HEADER false, DELIMITER '\x01', QUOTE '', ESCAPE ''",
  parquet: 'FORMAT parquet',
};

/** A struct key or column name: names come from the catalogue and formula names (letters, digits, _, up to two dots). */
function quote(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*){0,2}$/.test(name)) throw new Error(`not a column name: ${name}`);
  return `"${name}"`;
}

function segmentValue(key: SegmentKey, day: string, device: string): string {
  switch (key) {
    case 'day':
      return `strftime(${day}, '%Y-%m-%d')`;
    case 'week':
      return `strftime(date_trunc('week', ${day}), '%Y-%m-%d')`;
    case 'month':
      return `strftime(${day}, '%Y-%m')`;
    case 'year':
      return `year(${day})`;
    case 'dayOfWeek':
      return `upper(dayname(${day}))`;
    case 'deviceType':
      return `${device}::VARCHAR`;
    default:
      return assertNever(key, 'segment');
  }
}

/** `{id, name, segments: {day}, statistics: {...}, comparison: {statistics: {...}}}` from flat [path, SQL] columns. */
function structOf(columns: readonly NamedColumn[]): string {
  const pack = (members: readonly ColumnNode[]): string =>
    `struct_pack(${members
      .map((m) => `${quote(m.name)} := ${m.kind === 'value' ? m.column[1] : pack(m.members)}`)
      .join(', ')})`;
  return pack(columnTree(columns));
}

/** DuckDB (DESIGN D1): `$n` placeholders, `::` casts, struct_pack + to_json, GROUP BY ALL, SEMI JOIN. */
export const duckdbDialect: SqlDialect = {
  name: 'duckdb',
  quote,
  placeholder: (index, type) => `$${index}${type === undefined ? '' : `::${TYPE_NAMES[type]}`}`,
  cast: (sql, type) => `${sql}::${TYPE_NAMES[type]}`,
  tryCastBigint: (sql) => `TRY_CAST(${sql} AS BIGINT)`,
  dateLiteral: (isoDay) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDay)) throw new Error(`not a YYYY-MM-DD literal: ${isoDay}`);
    return `DATE '${isoDay}'`;
  },
  dateText: (sql) => `strftime(${sql}, '%Y-%m-%d')`,
  timestampText: (sql) => `strftime(${sql}, '%Y-%m-%dT%H:%M:%S.%gZ')`,
  factEnumLiteral: (column, value) => `'${value.replace(/'/g, "''")}'::${FACT_ENUM_TYPES[column]}`,

  exactMoney: (sql) => `(CAST(round((${sql}) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9)))`,
  round: (sql, digits) => (digits === undefined ? `round(${sql})` : `round(${sql}, ${digits})`),
  textMatch: (fn, subject, pattern) => `${TEXT_FUNCTIONS[fn]}(${subject}, ${pattern})`,
  like: (subject, pattern) => `${subject} LIKE ${pattern} ESCAPE '\\'`,
  concatWithSeparator: (separator, values) => `concat_ws('${separator.replace(/'/g, "''")}', ${values.join(', ')})`,
  integerDivide: (left, right) => `${left} // ${right}`,
  dayNumber: (sql) => `(${sql} - DATE '1970-01-01')`,
  monthNumber: (sql) => `(year(${sql}) * 12 + month(${sql}) - 1)`,
  weekStart: (sql) => `CAST(date_trunc('week', ${sql}) AS DATE)`,
  addDays: (sql, days) => `(${sql} + CAST(${days} AS INTEGER))`,
  addMonths: (sql, months) => `CAST(${sql} + to_months(CAST(${months} AS INTEGER)) AS DATE)`,

  segment: (segment, day, device) => segmentValue(segment.key, day, device),
  segmentOrder: (segment: SegmentDefinition, column) =>
    segment.order === 'value'
      ? column
      : `list_position([${segment.order.map((value) => `'${value.replace(/'/g, "''")}'`).join(', ')}], ${column})`,

  groupByAll: 'GROUP BY ALL',
  selectAllReplacing: (alias, replaced) =>
    `${alias}.*${replaced.length === 0 ? '' : ` REPLACE (${replaced.map(([name, sql]) => `${sql} AS ${name}`).join(', ')})`}`,
  semiJoin: (table, joined, on) => `${table} SEMI JOIN ${joined} ON ${on}`,
  orderedAggregates: true,

  labelValue: (table, key, name, id) =>
    `(SELECT lb.value FROM ${table} lb WHERE lb.${key} = ${id} AND lb.name = ${name})`,

  // list_distinct(list()): a DISTINCT aggregate cost ~3 ms of a 10 ms accounts report, this ~0.5 ms.
  distinctJoined: (sql) => `nullif(array_to_string(list_distinct(list(${sql})), ','), '')`,
  stringAgg: (sql, separator, options = {}) =>
    `string_agg(${options.distinct ? 'DISTINCT ' : ''}${sql}, '${separator.replace(/'/g, "''")}'${options.orderBy === undefined ? '' : ` ORDER BY ${options.orderBy}`})`,
  boolOr: (sql) => `bool_or(${sql})`,

  jsonObject: (columns) => `to_json(${structOf(columns)})`,
  jsonText: (sql) => `${sql}::VARCHAR`,
  asJson: (sql) => `${sql}::JSON`,
  toJson: (sql) => `to_json(${sql})`,
  emptyJsonObject: `'{}'::JSON`,
  emptyJsonArray: `'[]'::JSON`,
  // json_group_object is a macro that takes no ORDER BY: a map of the sorted lists is the same object, keys sorted.
  jsonGroupObject: (name, value) => `to_json(map(list(${name} ORDER BY ${name}), list(${value} ORDER BY ${name})))`,
  utf8Bytes: (sql) => `encode(${sql})`,
  byteLength: (sql) => `octet_length(${sql})`,

  copyToFile: (select, path, format) => `COPY (${select}) TO '${path.replace(/'/g, "''")}' (${COPY_OPTIONS[format]})`,
  exportFormat: () => undefined,
};
