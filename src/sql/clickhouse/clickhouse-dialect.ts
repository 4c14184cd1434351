import type { ComputedSegmentKey, SegmentDefinition } from '../../catalog/segments.js';
import { assertNever } from '../../shared/assert-never.js';
import type { ExportFormat } from '../compiled-query.js';
import { columnTree, type ColumnNode } from '../column-tree.js';
import type { NamedColumn, SqlDialect, SqlType, StreamedExport } from '../dialect.js';
import { checkedIsoDay, StandardSqlDialect } from '../standard-dialect.js';
import { SqlDouble, type SqlValue } from '../sql-value.js';

/**
 * ClickHouse (issue 22; chdb 26.7 and servers of the same SQL): the same statements as DuckDB's,
 * with the same answers. What differs, and how it is made equal:
 *
 * - Placeholders are `{pN:Type}`, bound server-side (`query_params`). Where the compiler gives no
 *   type the dialect cannot know it: it writes `{pN:?}` and `bindClickhouseParams` names the type
 *   of the bound value (null: Nullable). No value is ever pasted into the SQL text.
 * - Every query runs with CLICKHOUSE_QUERY_SETTINGS: `join_use_nulls` (an unmatched LEFT JOIN
 *   gives NULL, as in DuckDB, not 0: a missing FX rate stays null) and the rest listed there.
 * - Rounding: ClickHouse's `round` is banker's on floats, DuckDB's `round(x, n)` is
 *   `std::round(x * 10^n) / 10^n` (half away from zero); `halfAway` spells std::round exactly.
 *   DuckDB's DOUBLE -> INTEGER cast is half to even: `roundBankers` before the integer cast.
 * - Decimal / Decimal keeps the scale in ClickHouse (6 digits); the compiler casts money to
 *   Float64 before every division, as DuckDB computes ratios in DOUBLE.
 * - JSON: a JSON value is its text (String). `jsonObject` writes the object text itself, each
 *   plain value through `toJSONString`, each JSON value (flag 3 of a NamedColumn) as it is, so
 *   embedded labels, images and specificFields stay JSON rather than quoted strings.
 * - Aggregates: string_agg is `arrayStringConcat` over `groupArray` (skips NULLs; NULL without
 *   values, as DuckDB); ClickHouse aggregates take no ORDER BY, so an ordered one sorts
 *   `(key, value)` pairs by one ascending key (`orderedAggregates: false` tells the compiler to
 *   number the rows it orders by).
 * - Columns over three or more joined tables are aliased by the compiler (ClickHouse names an
 *   unaliased `g.id` there `g.id`); a label operand is a lookup in one map of the label name's
 *   values (`labelValue`): ClickHouse takes no correlated subquery in ORDER BY.
 * - Exports: no COPY; the engine streams `SELECT ... FORMAT <exportFormat(format).format>` over
 *   the client with `exportFormat(format).settings` (CSV: header, NULL as an empty field;
 *   NDJSON: the one `line` column raw, one per line; Parquet).
 */

const TYPE_NAMES: Readonly<Record<SqlType, string>> = {
  bigint: 'Int64',
  integer: 'Int32',
  double: 'Float64',
  varchar: 'String',
  date: 'Date32',
  boolean: 'Bool',
};

/** Conversions that keep NULL (ClickHouse's CAST to a non-Nullable type fails on NULL). */
const CONVERSIONS: Readonly<Record<SqlType, string>> = {
  bigint: 'toInt64',
  integer: 'toInt32',
  double: 'toFloat64',
  varchar: 'toString',
  date: 'toDate32',
  boolean: 'toBool',
};

/**
 * Settings every report statement runs with (the engine passes them as `clickhouse_settings`):
 * - join_use_nulls, group_by_use_nulls: NULL for what is missing, as in SQL (and DuckDB);
 * - enable_named_columns_in_function_tuple: `tuple(x AS a)` keeps its names;
 * - aggregate_functions_null_for_empty: an aggregate over no rows is NULL (DuckDB), not 0; a
 *   window's `max` over an empty frame too (the reach's first run has nothing covered);
 * - union_default_mode: a plain UNION is UNION DISTINCT, as in SQL;
 * - output_format_json_quote_64bit_integers=0: Int64 as JSON numbers (ids and counts < 2^53),
 *   in rows and in toJSONString; output_format_json_escape_forward_slashes=0: `/` as DuckDB writes it.
 */
export const CLICKHOUSE_QUERY_SETTINGS = {
  join_use_nulls: 1,
  group_by_use_nulls: 1,
  enable_named_columns_in_function_tuple: 1,
  aggregate_functions_null_for_empty: 1,
  union_default_mode: 'DISTINCT',
  output_format_json_quote_64bit_integers: 0,
  output_format_json_escape_forward_slashes: 0,
} as const;

/** How the engine streams an export: `SELECT ... FORMAT <format>` with these settings. */
export interface ClickhouseExportFormat extends StreamedExport {
  readonly format: 'CSVWithNames' | 'TSVRaw' | 'Parquet';
  readonly settings: Readonly<Record<string, string | number>>;
}

const EXPORT_FORMATS: Readonly<Record<ExportFormat, ClickhouseExportFormat>> = {
  // DuckDB's CSV writes NULL as an empty field.
  csv: { format: 'CSVWithNames', settings: { format_csv_null_representation: '' } },
  // One column of JSON text, which never holds a raw newline or tab: written as it is.
  ndjson: { format: 'TSVRaw', settings: {} },
  parquet: { format: 'Parquet', settings: { output_format_parquet_string_as_string: 1 } },
};

const WEEKDAY_NAMES = "['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY']";

/** std::round (half away from zero), exactly: the integer part plus the fraction doubled and truncated. */
function halfAway(y: string): string {
  return `(trunc(${y}) + trunc((${y} - trunc(${y})) * 2))`;
}

/**
 * The Sunday that starts a DATE's Sunday-first week (toDayOfWeek mode 2: Sunday 0 .. Saturday 6),
 * a Date32 like the day: toStartOfWeek returns a Date, which stops at 1970-01-01 and 2149-06-06.
 */
function sundayOf(day: string): string {
  return `subtractDays(${day}, toDayOfWeek(${day}, 2))`;
}

function segmentValue(key: ComputedSegmentKey, day: string, hour: string): string {
  switch (key) {
    case 'day':
      return `formatDateTime(${day}, '%Y-%m-%d')`;
    case 'week':
      // ISO weeks start on Monday (2024-12-30 is the Monday of 2025-W01).
      return `formatDateTime(toMonday(${day}), '%Y-%m-%d')`;
    case 'month':
      return `formatDateTime(${day}, '%Y-%m')`;
    case 'year':
      return `toInt64(toYear(${day}))`;
    case 'dayOfWeek':
      return `${WEEKDAY_NAMES}[toDayOfWeek(${day})]`;
    case 'quarter':
      return `concat(formatDateTime(${day}, '%Y'), '-Q', toString(toQuarter(${day})))`;
    case 'weekSunday':
      return `formatDateTime(${sundayOf(day)}, '%Y-%m-%d')`;
    case 'hour':
      return `concat(formatDateTime(${day}, '%Y-%m-%d'), 'T', leftPad(toString(${hour}), 2, '0'), ':00')`;
    default:
      return assertNever(key, 'segment');
  }
}

/** A JSON value's text inside an object: null for NULL. */
const embedded = ([, sql, json]: NamedColumn): string => `ifNull(${json ? sql : `toJSONString(${sql})`}, 'null')`;

/** `{"id":..,"segments":{"day":..},...}` as text, nested by the names' dots. */
function objectText(columns: readonly NamedColumn[]): string {
  const object = (members: readonly ColumnNode[]): string => {
    const parts = members.flatMap((m, i) => [
      `'${i === 0 ? '{' : ','}"${m.name}":'`,
      m.kind === 'value' ? embedded(m.column) : `concat(${object(m.members)})`,
    ]);
    return parts.length === 0 ? `'{}'` : [...parts, `'}'`].join(', ');
  };
  return `concat(${object(columnTree(columns))})`;
}

/**
 * ClickHouse: where it differs from standard SQL (`StandardSqlDialect`), which is most of it; what
 * it keeps is the quoting, string enum literals, GROUP BY ALL, `* REPLACE` and the empty JSON
 * values (its JSON being text, `asJson` is the text itself).
 */
class ClickhouseDialect extends StandardSqlDialect {
  readonly name = 'clickhouse';
  override readonly orderedAggregates = false;

  protected override typeName(type: SqlType): string {
    return TYPE_NAMES[type];
  }

  /** A backslash escapes in a ClickHouse string literal, so it is escaped too. */
  protected override stringLiteral(text: string): string {
    return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  }

  override placeholder(index: number, type?: SqlType): string {
    return `{p${index}:${type === undefined ? '?' : this.typeName(type)}}`;
  }

  override cast(sql: string, type: SqlType): string {
    if (sql === 'NULL') return `CAST(NULL AS Nullable(${this.typeName(type)}))`;
    // DuckDB casts a DOUBLE to an integer half to even (2.5 -> 2); toInt* truncates.
    if (type === 'bigint' || type === 'integer') return `${CONVERSIONS[type]}(roundBankers(${sql}))`;
    return `${CONVERSIONS[type]}(${sql})`;
  }

  tryCastBigint(sql: string): string {
    return `accurateCastOrNull(${sql}, 'Int64')`;
  }

  override dateLiteral(isoDay: string): string {
    return `toDate32('${checkedIsoDay(isoDay)}')`;
  }

  dateText(sql: string): string {
    return `formatDateTime(${sql}, '%Y-%m-%d')`;
  }

  // Milliseconds truncated from the microseconds, as DuckDB's %g.
  timestampText(sql: string): string {
    return `concat(substring(formatDateTime(${sql}, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), 'Z')`;
  }

  /** DuckDB's round(DOUBLE, n): std::round(x * 10^n) / 10^n, or for n < 0 std::round(x / 10^-n) * 10^-n. */
  override round(sql: string, digits?: string): string {
    if (digits === undefined) return halfAway(sql);
    if (/^\d+$/.test(digits)) {
      const scale = `1e${digits}`;
      return `(${halfAway(`(${sql} * ${scale})`)} / ${scale})`;
    }
    const n = `(${digits})`;
    return `if(${n} < 0, ${halfAway(`(${sql} / pow(10, -${n}))`)} * pow(10, -${n}), ${halfAway(`(${sql} * pow(10, ${n}))`)} / pow(10, ${n}))`;
  }

  // A Decimal from a float truncates: the nano-units are rounded first (a whole number, exact below
  // 2^53). accurateCastOrNull: a NULL row (a missing rate) still computes its hidden value, x / 0 =
  // inf, which a plain cast refuses (and an if() on the Nullable does not shield); the row is NULL anyway.
  override exactMoney(sql: string): string {
    return `(accurateCastOrNull(${halfAway(`((${sql}) * 1e9)`)}, 'Decimal(38, 0)') * toDecimal128('0.000000001', 9))`;
  }

  textMatch(fn: 'contains' | 'startsWith' | 'endsWith', subject: string, pattern: string): string {
    return fn === 'contains'
      ? `(position(${subject}, ${pattern}) > 0)`
      : `${fn === 'startsWith' ? 'startsWith' : 'endsWith'}(${subject}, ${pattern})`;
  }

  // ClickHouse's LIKE escapes % and _ with a backslash already.
  override like(subject: string, pattern: string): string {
    return `${subject} LIKE ${pattern}`;
  }

  override concatWithSeparator(separator: string, values: readonly string[]): string {
    return `arrayStringConcat(arrayFilter(x -> x IS NOT NULL, [${values.join(', ')}]), ${this.stringLiteral(separator)})`;
  }

  integerDivide(left: string, right: string): string {
    return `intDiv(${left}, ${right})`;
  }

  override dayNumber(sql: string): string {
    return `toInt64(toRelativeDayNum(${sql}))`;
  }

  monthNumber(sql: string): string {
    return `(toInt64(toYear(${sql})) * 12 + toInt64(toMonth(${sql})) - 1)`;
  }

  override weekStart(sql: string): string {
    return `toMonday(${sql})`;
  }

  override addDays(sql: string, days: string): string {
    return `addDays(${sql}, ${days})`;
  }

  addMonths(sql: string, months: string): string {
    return `addMonths(${sql}, ${months})`;
  }

  computedSegment(key: ComputedSegmentKey, day: string, hour: string): string {
    return segmentValue(key, day, hour);
  }

  override columnSegment(sql: string, type: SegmentDefinition['type']): string {
    return type === 'number' ? `toInt64(${sql})` : `toString(${sql})`;
  }

  override weekStartSunday(sql: string): string {
    return sundayOf(sql);
  }

  segmentOrder(segment: SegmentDefinition, column: string): string {
    return segment.order === 'value'
      ? column
      : `indexOf([${segment.order.map((value) => this.stringLiteral(value)).join(', ')}], ${column})`;
  }

  semiJoin(table: string, joined: string, on: string): string {
    return `${table} LEFT SEMI JOIN ${joined} ON ${on}`;
  }

  override labelValue(table: string, key: string, name: string, id: string): string {
    return `arrayElementOrNull((SELECT mapFromArrays(groupArray(lb.${key}), groupArray(lb.value)) FROM ${table} lb WHERE lb.name = ${name}), ${id})`;
  }

  distinctJoined(sql: string): string {
    return `nullif(arrayStringConcat(groupUniqArray(${sql}), ','), '')`;
  }

  /** string_agg: NULLs skipped (groupArray skips them), NULL without values. */
  override stringAgg(
    sql: string,
    separator: string,
    options: { readonly distinct?: boolean; readonly orderBy?: string } = {},
  ): string {
    const sep = this.stringLiteral(separator);
    // NULL without values, as string_agg; the compiler never aggregates empty texts.
    const agg = (values: string) => `nullif(arrayStringConcat(${values}, ${sep}), '')`;
    if (options.distinct) {
      if (options.orderBy !== undefined && options.orderBy !== sql)
        throw new Error('ClickHouse: a DISTINCT string_agg orders by its own value only');
      return agg(options.orderBy === undefined ? `groupUniqArray(${sql})` : `arraySort(groupUniqArray(${sql}))`);
    }
    if (options.orderBy === undefined) return agg(`groupArray(${sql})`);
    // One ascending key (the compiler numbers the rows, orderedAggregates: false).
    return agg(`arrayMap(x -> x.2, arraySort(x -> x.1, groupArray(tuple(${options.orderBy}, ${sql}))))`);
  }

  override boolOr(sql: string): string {
    return `max(${sql})`;
  }

  jsonObject(columns: readonly NamedColumn[]): string {
    // The names go into the text unquoted: each is checked as a column name first.
    for (const [name] of columns) this.quote(name);
    return objectText(columns);
  }

  override jsonText(sql: string): string {
    return sql;
  }

  override asJson(sql: string): string {
    return sql;
  }

  override toJson(sql: string): string {
    return `toJSONString(${sql})`;
  }

  // Sorted by name (arraySort orders the tuples by their first element), as DuckDB's ORDER BY.
  jsonGroupObject(name: string, value: string): string {
    return `concat('{', arrayStringConcat(arrayMap(x -> x.2, arraySort(groupArray(tuple(${name}, concat(toJSONString(${name}), ':', toJSONString(${value})))))), ','), '}')`;
  }

  utf8Bytes(sql: string): string {
    return sql;
  }

  override byteLength(sql: string): string {
    return `length(${sql})`;
  }

  copyToFile(): string {
    throw new Error('ClickHouse writes no files: the engine streams SELECT ... FORMAT (exportFormat)');
  }

  exportFormat(format: ExportFormat): ClickhouseExportFormat {
    return EXPORT_FORMATS[format];
  }
}

export const clickhouseDialect: SqlDialect = new ClickhouseDialect();

/** The ClickHouse type of a bound JS value (null: Nullable(Nothing), which takes NULL only). */
function clickhouseTypeOf(value: SqlValue): string {
  if (value === null) return 'Nullable(Nothing)';
  if (value instanceof SqlDouble) return 'Float64';
  if (value instanceof Date) return "DateTime64(3, 'UTC')";
  if (Array.isArray(value)) return 'Array(String)';
  if (typeof value === 'bigint') return 'Int64';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'Int64' : 'Float64';
  if (typeof value === 'boolean') return 'Bool';
  return 'String';
}

/** A bound value as @clickhouse/client formats query_params (SqlDouble: its number). */
export type ClickhouseParam = string | number | bigint | boolean | null | Date | readonly string[];

/**
 * A compiled statement's SQL and values for the ClickHouse client: `{pN:?}` gets the type of
 * value N, a NULL bound to a typed placeholder that type made Nullable, and `query_params` maps
 * pN to the value. Pure; values stay out of the SQL text.
 */
export function bindClickhouseParams(
  sql: string,
  params: readonly SqlValue[],
): { readonly sql: string; readonly query_params: Record<string, ClickhouseParam> } {
  const query_params: Record<string, ClickhouseParam> = {};
  params.forEach((value, i) => {
    const plain = value instanceof SqlDouble ? value.value : (value as ClickhouseParam);
    // An integral number past 2^53 is a Float64 (1e20): as its text, which chdb's binder takes
    // (it refuses such numbers) and a server parses the same.
    query_params[`p${i + 1}`] =
      typeof plain === 'number' && Number.isInteger(plain) && !Number.isSafeInteger(plain) ? String(plain) : plain;
  });
  const bound = sql.replace(/\{p(\d+):([^{}]+)\}/g, (_match, index: string, type: string) => {
    const value = params[Number(index) - 1];
    if (value === undefined) throw new Error(`no value bound for p${index}`);
    if (type === '?') return `{p${index}:${clickhouseTypeOf(value)}}`;
    return value === null && !type.startsWith('Nullable(') ? `{p${index}:Nullable(${type})}` : `{p${index}:${type}}`;
  });
  return { sql: bound, query_params };
}
