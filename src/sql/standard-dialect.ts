import type { FactColumn } from '../catalog/fact-sources.js';
import type { ComputedSegmentKey, SegmentDefinition } from '../catalog/segments.js';
import type { ExportFormat } from './compiled-query.js';
import type { NamedColumn, SqlDialect, SqlType, StreamedExport } from './dialect.js';

/** SQL's own names of the types a value is bound or cast as (DOUBLE PRECISION: the standard's double). */
const STANDARD_TYPE_NAMES: Readonly<Record<SqlType, string>> = {
  bigint: 'BIGINT',
  integer: 'INTEGER',
  double: 'DOUBLE PRECISION',
  varchar: 'VARCHAR',
  date: 'DATE',
  boolean: 'BOOLEAN',
};

/** A YYYY-MM-DD the compiler wrote, checked before it becomes a DATE literal. */
export function checkedIsoDay(isoDay: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDay)) throw new Error(`not a YYYY-MM-DD literal: ${isoDay}`);
  return isoDay;
}

/**
 * The ANSI / PostgreSQL spelling of every `SqlDialect` member that has one, so that an engine's
 * dialect (src/sql/<engine>/) writes only where its engine differs. A class rather than a base
 * object spread into each dialect: the standard members are written in terms of a few others
 * (a typed placeholder is a cast, an empty JSON object is `asJson` of a literal, a separator is a
 * string literal), and `this` makes an engine's override of one of those reach every member built
 * on it; an object spread would bind them to the standard ones. The compiler only ever calls a
 * dialect's members as methods (`d.cast(...)`), never detached.
 *
 * Abstract: what standard SQL does not say (date formatting, text search functions, calendar
 * arithmetic beyond days, segment buckets, JSON objects, UTF-8 bytes, exports) or says in a way
 * neither engine takes as it is. Two members below are no standard but what both engines share
 * (`groupByAll`, `selectAllReplacing`): an engine without GROUP BY ALL or `* REPLACE` cannot
 * implement this interface as it is.
 *
 * A standard member written here is one at least one engine produces as it is: test/golden/
 * (golden-sql.test.ts) holds every statement byte for byte, and test/engines/clickhouse-dialect.test.ts
 * runs both engines' statements over the same data.
 */
export abstract class StandardSqlDialect implements SqlDialect {
  abstract readonly name: string;

  // Hooks the standard members are written with: override one and every member built on it follows.
  /** The engine's name of a type. */
  protected typeName(type: SqlType): string {
    return STANDARD_TYPE_NAMES[type];
  }

  /** `sql` as the type named `typeName` (the engine's name, or a type of its own such as JSON). */
  protected castAs(sql: string, typeName: string): string {
    return `CAST(${sql} AS ${typeName})`;
  }

  /** A string literal of text the compiler wrote (catalogue values, separators, a file path): quotes doubled. */
  protected stringLiteral(text: string): string {
    return `'${text.replace(/'/g, "''")}'`;
  }

  // Names and values.
  /** A column or alias: names come from the catalogue and formula names (letters, digits, _, up to two dots). */
  quote(name: string): string {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*){0,2}$/.test(name))
      throw new Error(`not a column name: ${name}`);
    return `"${name}"`;
  }

  /** `$n`, cast where a type is given. */
  placeholder(index: number, type?: SqlType): string {
    return type === undefined ? `$${index}` : this.cast(`$${index}`, type);
  }

  cast(sql: string, type: SqlType): string {
    return this.castAs(sql, this.typeName(type));
  }

  abstract tryCastBigint(sql: string): string;

  dateLiteral(isoDay: string): string {
    return `DATE '${checkedIsoDay(isoDay)}'`;
  }

  abstract dateText(sql: string): string;
  abstract timestampText(sql: string): string;

  /** The enum value as a string literal (an engine with enum types of its own may cast it). */
  factEnumLiteral(_column: 'device' | 'network', value: string): string {
    return this.stringLiteral(value);
  }

  // Arithmetic and text. CAST(... AS ...) is written out, not `this.cast`, where the engine's own
  // cast could differ in meaning or spelling (the golden SQL holds DuckDB's mix of both).
  round(sql: string, digits?: string): string {
    return digits === undefined ? `round(${sql})` : `round(${sql}, ${digits})`;
  }

  exactMoney(sql: string): string {
    return `(CAST(round((${sql}) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9)))`;
  }

  abstract textMatch(fn: 'contains' | 'startsWith' | 'endsWith', subject: string, pattern: string): string;

  /** Standard LIKE has no escape character unless one is named. */
  like(subject: string, pattern: string): string {
    return `${subject} LIKE ${pattern} ESCAPE '\\'`;
  }

  /** concat_ws skips NULLs (PostgreSQL, DuckDB). */
  concatWithSeparator(separator: string, values: readonly string[]): string {
    return `concat_ws(${this.stringLiteral(separator)}, ${values.join(', ')})`;
  }

  abstract integerDivide(left: string, right: string): string;

  // Calendar arithmetic: DATE - DATE is a number of days, DATE + INTEGER a DATE (PostgreSQL, DuckDB).
  dayNumber(sql: string): string {
    return `(${sql} - ${this.dateLiteral('1970-01-01')})`;
  }

  abstract monthNumber(sql: string): string;

  /** date_trunc('week') is the ISO week's Monday. */
  weekStart(sql: string): string {
    return `CAST(date_trunc('week', ${sql}) AS DATE)`;
  }

  /** extract(dow) counts from Sunday (0). */
  weekStartSunday(sql: string): string {
    return `CAST(${sql} - CAST(extract(dow FROM ${sql}) AS INTEGER) AS DATE)`;
  }

  addDays(sql: string, days: string): string {
    return `(${sql} + CAST(${days} AS INTEGER))`;
  }

  abstract addMonths(sql: string, months: string): string;

  // Segments.
  /** A column segment is its column's value (an enum as text); the dialect computes the others. */
  segment(segment: SegmentDefinition, day: string, column: (name: FactColumn) => string): string {
    if (segment.valueFrom === 'column') return this.columnSegment(column(segment.reads[0]), segment.type);
    return this.computedSegment(segment.key, day, column('hour'));
  }

  columnSegment(sql: string, type: SegmentDefinition['type']): string {
    return this.cast(sql, type === 'number' ? 'bigint' : 'varchar');
  }

  /** Day .. Year, DayOfWeek, WeekSunday from `day`; Hour from `day` and `hour` (0-23). */
  abstract computedSegment(key: ComputedSegmentKey, day: string, hour: string): string;
  abstract segmentOrder(segment: SegmentDefinition, column: string): string;

  // Grouping and joins: not standard SQL, but both engines spell them so.
  readonly groupByAll: string = 'GROUP BY ALL';

  selectAllReplacing(alias: string, replaced: readonly NamedColumn[]): string {
    return `${alias}.*${replaced.length === 0 ? '' : ` REPLACE (${replaced.map(([name, sql]) => `${sql} AS ${name}`).join(', ')})`}`;
  }

  abstract semiJoin(table: string, joined: string, on: string): string;

  /** `string_agg(x, ',' ORDER BY k DESC NULLS LAST)`: PostgreSQL, DuckDB. */
  readonly orderedAggregates: boolean = true;

  // Labels: a correlated scalar subquery.
  labelValue(table: string, key: string, name: string, id: string): string {
    return `(SELECT lb.value FROM ${table} lb WHERE lb.${key} = ${id} AND lb.name = ${name})`;
  }

  // Aggregates.
  abstract distinctJoined(sql: string): string;

  stringAgg(
    sql: string,
    separator: string,
    options: { readonly distinct?: boolean; readonly orderBy?: string } = {},
  ): string {
    return `string_agg(${options.distinct ? 'DISTINCT ' : ''}${sql}, ${this.stringLiteral(separator)}${options.orderBy === undefined ? '' : ` ORDER BY ${options.orderBy}`})`;
  }

  boolOr(sql: string): string {
    return `bool_or(${sql})`;
  }

  // JSON: a type of its own (PostgreSQL, DuckDB).
  abstract jsonObject(columns: readonly NamedColumn[]): string;

  jsonText(sql: string): string {
    return this.cast(sql, 'varchar');
  }

  asJson(sql: string): string {
    return this.castAs(sql, 'JSON');
  }

  toJson(sql: string): string {
    return `to_json(${sql})`;
  }

  get emptyJsonObject(): string {
    return this.asJson(this.stringLiteral('{}'));
  }

  get emptyJsonArray(): string {
    return this.asJson(this.stringLiteral('[]'));
  }

  abstract jsonGroupObject(name: string, value: string): string;
  abstract utf8Bytes(sql: string): string;

  byteLength(sql: string): string {
    return `octet_length(${sql})`;
  }

  // Exports: how rows leave the engine is the engine's own.
  abstract copyToFile(select: string, path: string, format: ExportFormat): string;
  abstract exportFormat(format: ExportFormat): StreamedExport | undefined;
}
