import { createHash } from 'node:crypto';
import type { PartitionKind, ReplicatedTable } from './replicated-tables.js';

/** A DuckDB column as information_schema describes it. */
export interface SourceColumn {
  readonly name: string;
  /** DuckDB's data_type: BIGINT, DECIMAL(18,6), ENUM('A', 'B'), VARCHAR[], TIMESTAMP WITH TIME ZONE, ... */
  readonly type: string;
  readonly nullable: boolean;
}

/** A replicated table with its columns as ClickHouse declares them. */
export interface TableSchema {
  readonly table: ReplicatedTable;
  /** `name Type` pairs, in the DuckDB table's order (organization_id last when borrowed). */
  readonly columns: ReadonlyArray<readonly [name: string, type: string]>;
}

/**
 * ClickHouse's type for a DuckDB column. Dates are Date32 (1900-2299): markups take any date a
 * user gives and Date stops at 1970. Enums become LowCardinality(String): the compiler compares
 * them with text, and an Enum8 would need its values kept in two places.
 */
export function clickhouseType(column: SourceColumn): string {
  const base = baseType(column.type.trim());
  if (!column.nullable) return base;
  if (base.startsWith('Array(')) throw new Error(`a nullable list column has no ClickHouse type: ${column.name}`);
  return base.startsWith('LowCardinality(') ? `LowCardinality(Nullable(${base.slice(15, -1)}))` : `Nullable(${base})`;
}

function baseType(type: string): string {
  if (type.endsWith('[]')) return `Array(${baseType(type.slice(0, -2))})`;
  if (type.startsWith('ENUM(')) return 'LowCardinality(String)';
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(type);
  if (decimal) return `Decimal(${decimal[1]}, ${decimal[2]})`;
  const simple = SIMPLE_TYPES[type];
  if (simple === undefined) throw new Error(`no ClickHouse type for DuckDB's ${type}`);
  return simple;
}

const SIMPLE_TYPES: Readonly<Record<string, string>> = {
  BIGINT: 'Int64',
  INTEGER: 'Int32',
  SMALLINT: 'Int16',
  TINYINT: 'Int8',
  DOUBLE: 'Float64',
  VARCHAR: 'String',
  BOOLEAN: 'Bool',
  DATE: 'Date32',
  'TIMESTAMP WITH TIME ZONE': "DateTime64(6, 'UTC')",
  TIMESTAMP: "DateTime64(6, 'UTC')",
};

/** The table's ClickHouse columns from its DuckDB columns. */
export function tableSchema(table: ReplicatedTable, source: readonly SourceColumn[]): TableSchema {
  if (source.length === 0) throw new Error(`table ${table.name} has no columns in DuckDB`);
  const columns = source.map((c) => [c.name, clickhouseType(c)] as const);
  const borrowed = table.organizationOf !== undefined && !source.some((c) => c.name === 'organization_id');
  return { table, columns: borrowed ? [...columns, ['organization_id', 'Int64'] as const] : columns };
}

export const PARTITION_EXPRESSIONS: Readonly<Record<PartitionKind, string | undefined>> = {
  'organization-month': '(organization_id, toYYYYMM(day))',
  organization: 'organization_id',
  whole: undefined,
};

/** `(col Type, ...) ENGINE = <engine> PARTITION BY ... ORDER BY (...)` after `CREATE TABLE name`. */
export function tableBody(schema: TableSchema, engine: string): string {
  const partition = PARTITION_EXPRESSIONS[schema.table.partition];
  return [
    `(\n  ${schema.columns.map(([name, type]) => `${quoteName(name)} ${type}`).join(',\n  ')}\n)`,
    `ENGINE = ${engine}`,
    ...(partition === undefined ? [] : [`PARTITION BY ${partition}`]),
    `ORDER BY (${schema.table.orderBy.join(', ')})`,
  ].join('\n');
}

/** The one-node DDL: a MergeTree per table in `database`. */
export function localTableDdl(database: string, schema: TableSchema): string {
  return `CREATE TABLE IF NOT EXISTS ${quoteName(database)}.${quoteName(schema.table.name)}\n${tableBody(schema, 'MergeTree')}`;
}

/**
 * What the ClickHouse tables' shape was derived from: a mismatch at start means the tables were
 * made by another adreport version (another migration) and must be rebuilt, not read.
 */
export function schemaFingerprint(schemas: readonly TableSchema[]): string {
  const text = schemas
    .map(
      (s) =>
        `${s.table.name}|${s.table.partition}|${s.table.orderBy.join(',')}|${s.columns.map((c) => c.join(' ')).join(',')}`,
    )
    .join('\n');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Names come from REPLICATED_TABLES and DuckDB's catalogue; the check keeps it that way. */
export function quoteName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a ClickHouse name: ${name}`);
  return `\`${name}\``;
}
