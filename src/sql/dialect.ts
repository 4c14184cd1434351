import type { FactColumn } from '../catalog/fact-sources.js';
import type { SegmentDefinition } from '../catalog/segments.js';
import type { ExportFormat } from './compiled-query.js';

/** The types a bound value or a cast names. */
export type SqlType = 'bigint' | 'integer' | 'double' | 'varchar' | 'date' | 'boolean';

/**
 * A flat output column: its JSON path (`statistics.clicks`), its SQL, and whether that SQL is a
 * JSON value (labels, images, specificFields), which a JSON object embeds as JSON, not as text.
 */
export type NamedColumn = readonly [name: string, sql: string, json?: boolean];

/** An export the engine's client streams as `SELECT ... FORMAT <format>` with `settings`. */
export interface StreamedExport {
  readonly format: string;
  readonly settings: Readonly<Record<string, string | number>>;
}

/**
 * Everything the report compiler says that one SQL engine says differently from another. The
 * compiler (src/sql/*.ts) is written against this interface; src/sql/<engine>/ implements it over
 * `StandardSqlDialect` (standard-dialect.ts: the standard spelling of every member that has one),
 * and nothing else spells engine-specific SQL. Arguments are SQL fragments the compiler built
 * (columns, bound placeholders, catalogue names), never user text. A dialect is a class instance:
 * call its members on it (`d.cast(...)`); a spread or detached member loses the engine's overrides.
 */
export interface SqlDialect {
  readonly name: string;

  // Names and values.
  /** A column or alias, quoted (names come from the catalogue and formula names). */
  quote(identifier: string): string;
  /** The placeholder of bound value number `index` (1-based), typed when `type` is given. */
  placeholder(index: number, type?: SqlType): string;
  /** `sql` as `type` (the caller adds parentheses around compound expressions). */
  cast(sql: string, type: SqlType): string;
  /** `sql` as a BIGINT, or null where it does not fit. */
  tryCastBigint(sql: string): string;
  /** A DATE literal of a YYYY-MM-DD the compiler wrote. */
  dateLiteral(isoDay: string): string;
  /** A DATE as YYYY-MM-DD text. */
  dateText(sql: string): string;
  /** A UTC TIMESTAMP as ISO 8601 text with milliseconds (`2026-11-24T10:00:00.000Z`). */
  timestampText(sql: string): string;
  /** A literal of the device or network enum of the fact tables. */
  factEnumLiteral(column: 'device' | 'network', value: string): string;

  // Arithmetic and text.
  round(sql: string, digits?: string): string;
  /**
   * Money computed in floating point (an amount converted at a rate, or with a markup) as an exact
   * DECIMAL(38,9) of its nearest nano-unit (halves away from zero): its sums are then exact and the
   * same in any order, so two engines (or two runs) round a total to the same micro.
   */
  exactMoney(sql: string): string;
  /** contains / starts with / ends with, over text. */
  textMatch(fn: 'contains' | 'startsWith' | 'endsWith', subject: string, pattern: string): string;
  /** `subject LIKE pattern` where `\` escapes % and _ in the pattern. */
  like(subject: string, pattern: string): string;
  /** `values` joined by `separator`, leaving out nulls (no leading or doubled separator). */
  concatWithSeparator(separator: string, values: readonly string[]): string;
  /** Integer division. */
  integerDivide(left: string, right: string): string;

  // Calendar arithmetic (compare pairs the i-th time bucket of two ranges).
  /** A DATE as a whole number of days; only differences mean anything. */
  dayNumber(sql: string): string;
  /** A DATE's month as year * 12 + month - 1 (so that whole quarters and years divide it). */
  monthNumber(sql: string): string;
  /** The Monday of a DATE's ISO week, as a DATE. */
  weekStart(sql: string): string;
  /** A DATE `days` (an integer expression) later, as a DATE. */
  addDays(sql: string, days: string): string;
  /** A DATE `months` later (the month's last day where the day does not exist), as a DATE. */
  addMonths(sql: string, months: string): string;

  // Segments.
  /**
   * The segment's bucket value on a fact row: `day` (DATE; a compared row's paired day), the
   * row's other columns through `column` (a column segment's value, the hour of Hour).
   */
  segment(segment: SegmentDefinition, day: string, column: (name: FactColumn) => string): string;
  /** The Sunday of the Sunday-first week holding a DATE. */
  weekStartSunday(sql: string): string;
  /** How a segment column sorts (DayOfWeek: MONDAY first). */
  segmentOrder(segment: SegmentDefinition, column: string): string;

  // Grouping and joins.
  /** GROUP BY every non-aggregated column of the SELECT. */
  readonly groupByAll: string;
  /** `alias.*` with some columns replaced by other values. */
  selectAllReplacing(alias: string, replaced: readonly NamedColumn[]): string;
  /** Rows of `table` that have a match `on` (a semi join), as a FROM item. */
  semiJoin(table: string, joined: string, on: string): string;
  /**
   * Whether an aggregate takes `ORDER BY` with several keys, directions and NULLS placement
   * (DuckDB). Without (ClickHouse), `stringAgg`'s `orderBy` is one ascending key, so the
   * compiler numbers the rows first.
   */
  readonly orderedAggregates: boolean;

  // Labels.
  /**
   * The value of the label named by the bound `name` on the entity `id` (null without one), from
   * `table` keyed by `key`: a scalar subquery per row in DuckDB; ClickHouse takes no correlated
   * subquery in ORDER BY, so it looks the id up in one map of the name's labels.
   */
  labelValue(table: string, key: string, name: string, id: string): string;

  // Aggregates.
  /** The distinct non-null values of `sql` joined by commas; null without any. */
  distinctJoined(sql: string): string;
  /** string_agg(sql, separator), optionally DISTINCT and ordered. */
  stringAgg(
    sql: string,
    separator: string,
    options?: { readonly distinct?: boolean; readonly orderBy?: string },
  ): string;
  boolOr(sql: string): string;

  // JSON.
  /** A JSON object (nested by the names' dots) from flat columns, as the engine's JSON value. */
  jsonObject(columns: readonly NamedColumn[]): string;
  /** A JSON value as text. */
  jsonText(sql: string): string;
  /** Text that holds JSON, as the engine's JSON value. */
  asJson(sql: string): string;
  /** A value (a list, a struct) as the engine's JSON value. */
  toJson(sql: string): string;
  readonly emptyJsonObject: string;
  readonly emptyJsonArray: string;
  /** `{name: value, ...}` of the rows of a subquery, keys in byte order of the names, as a JSON aggregate. */
  jsonGroupObject(name: string, value: string): string;
  /** Text as its UTF-8 bytes (a BLOB) and the byte count of such bytes. */
  utf8Bytes(sql: string): string;
  byteLength(sql: string): string;

  // Exports.
  /** The statement that writes a SELECT's rows to a file (or named pipe) at `path` in `format`. */
  copyToFile(select: string, path: string, format: ExportFormat): string;
  /** How the client streams an export SELECT instead; undefined where `copyToFile` writes it (DuckDB). */
  exportFormat(format: ExportFormat): StreamedExport | undefined;
}
