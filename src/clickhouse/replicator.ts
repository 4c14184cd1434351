import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Executor } from '../store/database.js';
import type { Store } from '../store/store.js';
import type { WriteScope } from '../store/data-versions.js';
import { VERSION } from '../version.js';
import { ClickHouseFailure, type ClickHouse } from './clickhouse-connection.js';
import {
  localTableDdl,
  PARTITION_EXPRESSIONS,
  quoteName,
  schemaFingerprint,
  tableSchema,
  type TableSchema,
} from './clickhouse-schema.js';
import { readSourceColumns } from './source-columns.js';
import { DIMENSION_TABLES, FACT_TABLES, REPLICATED_TABLES, type ReplicatedTable } from './replicated-tables.js';

/** Bookkeeping tables of the replica: which schema made it, and what each partition holds. */
export const SCHEMA_TABLE = 'adreport_schema';
export const WATERMARK_TABLE = 'adreport_watermarks';
export const BOOKKEEPING_DDL = [
  `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (fingerprint String, adreport_version String, created_at DateTime64(3, 'UTC'))
   ENGINE = MergeTree ORDER BY tuple()`,
  // One row per (organization, partition) once merged; read with FINAL. version: the DuckDB
  // partition version (facts), or a fingerprint of the rows (dimensions, FX).
  `CREATE TABLE IF NOT EXISTS ${WATERMARK_TABLE} (
     organization_id Int64, partition String, version String, rows UInt64, replicated_at DateTime64(3, 'UTC')
   ) ENGINE = ReplacingMergeTree(replicated_at) ORDER BY (organization_id, partition)`,
];
/** FX rates belong to no organization: their watermark row is organization 0's. */
const GLOBAL = 0;
const DIMENSIONS = 'dimensions';
const FX = 'fx_rates';

interface Target {
  readonly clickhouse: ClickHouse;
  readonly name: string;
  readonly staging: string;
}

/** The replica was made by an adreport of another schema: it must be rebuilt, not read. */
export class ClickHouseSchemaMismatch extends Error {}

export interface ReplicationProgress {
  partitions: number;
  rows: number;
  ms: number;
}

export interface ReplicatorOptions {
  /** Where partitions wait as Parquet files between DuckDB and ClickHouse. */
  readonly stagingDirectory: string;
  readonly log: (line: string) => void;
  /** First retry after a failure; doubles up to a minute. */
  readonly retryMs?: number;
  /**
   * A sharded cluster (`adreport clickhouse schema`): one connection per shard, in the order of its
   * remote_servers. Organization K's partitions go to `<table>_local` on shard K mod N (the
   * Distributed tables' sharding key is organization_id); FX rates and the bookkeeping tables, one
   * replica set on every node, to the first. The cluster's tables come from its DDL, not from here.
   */
  readonly shards?: readonly ClickHouse[];
  /** After each pass: whether ClickHouse answered (false only when no answer came at all). */
  readonly onReachability?: (reachable: boolean) => void;
}

/**
 * Copies what reports read from DuckDB (the system of record) to ClickHouse, a partition at a
 * time (DESIGN D9). A partition leaves DuckDB as Parquet, is loaded into a staging table and
 * swapped in with REPLACE PARTITION: atomic per table, so a reader sees the old month or the new
 * one, and doing it twice gives the same result. The watermark row is written last: a copy killed
 * half-way is simply done again (its old partitions stay readable meanwhile).
 *
 * What to copy comes from DuckDB itself, not from memory: fact months by the version every fact
 * write bumps in its transaction (migration 011), dimensions and FX rates by a fingerprint of
 * their rows. So a restart, a crash or a ClickHouse that was away is caught up by the same
 * comparison. An organization is `ready` (its reports may run on ClickHouse) once a comparison
 * found nothing to copy and no write came after it began.
 */
export class ClickHouseReplicator {
  private schemas: TableSchema[] = [];
  private prepared = false;
  private readonly ready = new Set<number>();
  /** Writes seen per organization: a pass only marks ready what did not change under it. */
  private readonly writes = new Map<number, number>();
  private readonly pending = new Set<number>();
  private fxPending = true;
  /** Every organization is compared on the next pass (at start, and after a write to all of them). */
  private pendingAll = true;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  /** Totals since start, for the log and the benchmark. */
  readonly copied: ReplicationProgress = { partitions: 0, rows: 0, ms: 0 };
  /** The last failure, for health. */
  lastError: string | undefined;

  constructor(
    private readonly db: Store,
    private readonly clickhouse: ClickHouse,
    private readonly options: ReplicatorOptions,
  ) {}

  /**
   * Creates the tables of a new replica, or checks an existing one was made for this schema
   * (throws ClickHouseSchemaMismatch otherwise). The schema is derived from the migrated DuckDB
   * file, so a new migration that changes a replicated table changes the fingerprint.
   */
  async prepare(): Promise<void> {
    const columns = await this.db.read((r) => readSourceColumns(r));
    this.schemas = REPLICATED_TABLES.map((t) => tableSchema(t, columns.get(t.name) ?? []));
    const fingerprint = schemaFingerprint(this.schemas);
    const book = this.bookkeeping;
    if (!this.sharded) for (const ddl of BOOKKEEPING_DDL) await book.command(ddl);
    const made = await book.rows<{ fingerprint: string; adreport_version: string }>(
      `SELECT fingerprint, adreport_version FROM ${SCHEMA_TABLE} ORDER BY created_at DESC LIMIT 1`,
    );
    const found = made[0];
    if (found !== undefined && found.fingerprint !== fingerprint) {
      throw new ClickHouseSchemaMismatch(
        `${book.description} holds tables of another schema (${found.fingerprint}, made by adreport ${found.adreport_version}); ` +
          `adreport ${VERSION} needs schema ${fingerprint}. Drop database ${book.database} there ` +
          `(embedded: delete the directory) and start again: replication rebuilds it from DuckDB.`,
      );
    }
    for (const schema of this.schemas) {
      if (!this.sharded) await this.clickhouse.command(localTableDdl(this.clickhouse.database, schema));
      // A plain MergeTree with the table's partitioning: REPLACE PARTITION takes it into a
      // ReplicatedMergeTree too, and a staging table needs no replicas of its own.
      const partition = PARTITION_EXPRESSIONS[schema.table.partition];
      for (const { clickhouse, name, staging } of this.targetsOf(schema.table)) {
        await clickhouse.command(
          `CREATE TABLE IF NOT EXISTS ${quoteName(staging)} AS ${quoteName(name)} ENGINE = MergeTree` +
            `${partition === undefined ? '' : ` PARTITION BY ${partition}`} ORDER BY (${schema.table.orderBy.join(', ')})`,
        );
      }
    }
    if (found === undefined) {
      await book.command(`INSERT INTO ${SCHEMA_TABLE} VALUES ({fingerprint:String}, {version:String}, now64(3))`, {
        fingerprint,
        version: VERSION,
      });
    }
    // Files of a copy killed half-way are of no use: the copy starts again from DuckDB.
    fs.rmSync(this.options.stagingDirectory, { recursive: true, force: true });
    fs.mkdirSync(this.options.stagingDirectory, { recursive: true, mode: 0o700 });
    this.prepared = true;
  }

  /** Whether `organizationId`'s reports may run on ClickHouse: everything it reads is copied. */
  isReady(organizationId: number): boolean {
    return this.ready.has(organizationId) && !this.fxPending;
  }

  /** After a committed write: the organization's reports go to DuckDB until it is copied again. */
  changed(scope: Exclude<WriteScope, 'no-report-data'>): void {
    if (scope === 'all-organizations') {
      // FX rates, the generator, organizations: compare everything again.
      this.fxPending = true;
      for (const id of this.ready) this.noteWrite(id);
      this.ready.clear();
      this.pendingAll = true;
    } else {
      this.noteWrite(scope.organizationId);
      this.ready.delete(scope.organizationId);
      this.pending.add(scope.organizationId);
    }
    this.schedule(0);
  }

  /** Starts catching up (every organization) and following writes, in the background. */
  start(): void {
    this.schedule(0);
  }

  /** Resolves when nothing is pending (tests, the benchmark's lag). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.running) await this.running;
      else if (this.timer === undefined || this.stopped) return;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    fs.rmSync(this.options.stagingDirectory, { recursive: true, force: true });
  }

  private noteWrite(organizationId: number): void {
    this.writes.set(organizationId, (this.writes.get(organizationId) ?? 0) + 1);
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.running !== undefined) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.pass()
        .then(
          () => {
            this.failures = 0;
            this.lastError = undefined;
            this.options.onReachability?.(true);
          },
          (error: unknown) => {
            if (error instanceof ClickHouseSchemaMismatch) {
              this.stopped = true;
              this.lastError = error.message;
              this.options.log(`clickhouse: replication stopped: ${error.message}`);
              return;
            }
            if (error instanceof ClickHouseFailure && error.unreachable) this.options.onReachability?.(false);
            this.failures++;
            this.lastError = error instanceof Error ? error.message : String(error);
            this.options.log(`clickhouse: replication failed (attempt ${this.failures}), retrying: ${this.lastError}`);
          },
        )
        .finally(() => {
          this.running = undefined;
          const again = this.pendingAll || this.pending.size > 0 || this.fxPending;
          if (again) this.schedule(this.failures === 0 ? 0 : this.retryDelay());
        });
    }, delayMs);
    this.timer.unref();
  }

  private retryDelay(): number {
    return Math.min(60_000, (this.options.retryMs ?? 1000) * 2 ** Math.min(this.failures - 1, 6));
  }

  /** One pass: FX if changed, then every pending organization. */
  private async pass(): Promise<void> {
    const started = performance.now();
    const before = { ...this.copied };
    // ClickHouse was away at start: its schema is checked as soon as it answers.
    if (!this.prepared) await this.prepare();
    if (this.fxPending) {
      await this.copyFx();
      this.fxPending = false;
    }
    let organizations: number[];
    if (this.pendingAll) {
      this.pendingAll = false;
      const rows = await this.db.read((r) => r.all<{ id: number }>('SELECT id FROM organizations ORDER BY id'));
      organizations = rows.map((r) => Number(r.id));
      for (const id of organizations) this.pending.add(id);
    }
    organizations = [...this.pending].sort((a, b) => a - b);
    let done = 0;
    for (const organizationId of organizations) {
      if (this.stopped) return;
      const writes = this.writes.get(organizationId) ?? 0;
      const copied = await this.copyOrganization(organizationId);
      done++;
      if ((this.writes.get(organizationId) ?? 0) === writes) {
        this.pending.delete(organizationId);
        this.ready.add(organizationId);
      }
      if (copied > 0) {
        this.options.log(
          `clickhouse: organization ${organizationId} replicated (${done}/${organizations.length}): ${copied} partitions`,
        );
      }
    }
    const partitions = this.copied.partitions - before.partitions;
    if (partitions > 0) {
      const rows = this.copied.rows - before.rows;
      const seconds = (performance.now() - started) / 1000;
      this.options.log(
        `clickhouse: ${partitions} partitions, ${rows} rows in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 0.001))} rows/s)`,
      );
    }
  }

  /** Copies what differs for one organization; the number of partitions copied. */
  private async copyOrganization(organizationId: number): Promise<number> {
    const marks = await this.watermarks(organizationId);
    const months = await this.db.read((r) =>
      r.all<{ month: string; version: number }>(
        `SELECT strftime(month, '%Y-%m') AS month, max(version) AS version FROM fact_partition_versions
          WHERE organization_id = $1 GROUP BY month ORDER BY month`,
        [organizationId],
      ),
    );
    let copied = 0;
    for (const { month, version } of months) {
      if (marks.get(month) === String(version)) continue;
      await this.copyMonth(organizationId, month, String(version));
      copied++;
    }
    const fingerprint = await this.dimensionsFingerprint(organizationId);
    if (marks.get(DIMENSIONS) !== fingerprint) {
      await this.copyDimensions(organizationId, fingerprint);
      copied++;
    }
    return copied;
  }

  private async watermarks(organizationId: number): Promise<Map<string, string>> {
    const rows = await this.bookkeeping.rows<{ partition: string; version: string }>(
      `SELECT partition, version FROM ${WATERMARK_TABLE} FINAL WHERE organization_id = {organization:Int64}`,
      { organization: organizationId },
    );
    return new Map(rows.map((r) => [r.partition, r.version]));
  }

  private async copyMonth(organizationId: number, month: string, version: string): Promise<void> {
    const first = `${month}-01`;
    let rows = 0;
    for (const table of FACT_TABLES) {
      rows += await this.copyPartition(
        table,
        `${organizationId}-${month.replace('-', '')}`,
        `SELECT ${this.columnsOf(table).join(', ')} FROM ${table.name}
          WHERE organization_id = $1 AND day >= $2::DATE AND day < $2::DATE + INTERVAL 1 MONTH
          ORDER BY ${table.orderBy.join(', ')}`,
        [organizationId, first],
        organizationId,
      );
    }
    await this.mark(organizationId, month, version, rows);
  }

  private async copyDimensions(organizationId: number, fingerprint: string): Promise<void> {
    let rows = 0;
    for (const table of DIMENSION_TABLES) {
      const columns = this.columnsOf(table).map((c) => `t.${c}`);
      const parent = table.organizationOf;
      const select =
        parent === undefined
          ? `SELECT ${columns.join(', ')} FROM ${table.name} t WHERE t.organization_id = $1`
          : `SELECT ${columns.slice(0, -1).join(', ')}, p.organization_id FROM ${table.name} t
               JOIN ${parent.parent} p ON p.id = t.${parent.column} WHERE p.organization_id = $1`;
      rows += await this.copyPartition(table, String(organizationId), select, [organizationId], organizationId);
    }
    await this.mark(organizationId, DIMENSIONS, fingerprint, rows);
  }

  private async copyFx(): Promise<void> {
    const table = REPLICATED_TABLES.find((t) => t.name === FX)!;
    const fingerprint = await this.db.read((r) => fingerprintOf(r, [`SELECT t FROM fx_rates t`], []));
    const marks = await this.watermarks(GLOBAL);
    if (marks.get(FX) === fingerprint) return;
    const rows = await this.copyPartition(
      table,
      'all',
      `SELECT ${this.columnsOf(table).join(', ')} FROM fx_rates ORDER BY currency, day`,
      [],
      GLOBAL,
    );
    await this.mark(GLOBAL, FX, fingerprint, rows);
  }

  /**
   * One partition of one table: DuckDB writes it as Parquet, ClickHouse loads it into the staging
   * table and swaps it in (or drops the partition when DuckDB has no rows for it). The rows copied.
   */
  private async copyPartition(
    table: ReplicatedTable,
    partitionId: string,
    select: string,
    params: readonly (number | string)[],
    organizationId: number,
  ): Promise<number> {
    const started = performance.now();
    const file = path.join(this.options.stagingDirectory, `${table.name}-${partitionId}.parquet`);
    const target = this.targetOf(table, organizationId);
    const staging = quoteName(target.staging);
    const name = quoteName(target.name);
    const clickhouse = target.clickhouse;
    try {
      await this.db.readExport(organizationId, (r) =>
        r.runOnce(`COPY (${select}) TO '${file.replace(/'/g, "''")}' (FORMAT parquet)`, [...params]),
      );
      await clickhouse.command(`TRUNCATE TABLE ${staging}`);
      await clickhouse.loadParquet(staging, file, this.columnsOf(table));
      const [{ rows }] = (await clickhouse.rows<{ rows: string | number }>(
        `SELECT count() AS rows FROM ${staging}`,
      )) as [{ rows: string | number }];
      const id = partitionId.replace(/'/g, '');
      if (Number(rows) === 0) await clickhouse.command(`ALTER TABLE ${name} DROP PARTITION ID '${id}'`);
      else await clickhouse.command(`ALTER TABLE ${name} REPLACE PARTITION ID '${id}' FROM ${staging}`);
      this.copied.partitions++;
      this.copied.rows += Number(rows);
      this.copied.ms += performance.now() - started;
      return Number(rows);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  private async mark(organizationId: number, partition: string, version: string, rows: number): Promise<void> {
    await this.bookkeeping.command(
      `INSERT INTO ${WATERMARK_TABLE} VALUES ({organization:Int64}, {partition:String}, {version:String}, {rows:UInt64}, now64(3))`,
      { organization: organizationId, partition, version, rows },
    );
  }

  private get sharded(): boolean {
    return (this.options.shards?.length ?? 0) > 0;
  }

  /** Where the schema and the watermarks live: the one node, or the first shard (one replica set everywhere). */
  private get bookkeeping(): ClickHouse {
    return this.options.shards?.[0] ?? this.clickhouse;
  }

  /** Where one organization's partitions of a table are swapped in. */
  private targetOf(table: ReplicatedTable, organizationId: number): Target {
    const shards = this.options.shards ?? [];
    if (shards.length === 0) return { clickhouse: this.clickhouse, name: table.name, staging: `${table.name}_staging` };
    if (table.partition === 'whole')
      return { clickhouse: shards[0]!, name: table.name, staging: `${table.name}_staging` };
    return {
      clickhouse: shards[organizationId % shards.length]!,
      name: `${table.name}_local`,
      staging: `${table.name}_staging`,
    };
  }

  /** Every place a table is written to: one, or (sharded) each shard's local table. */
  private targetsOf(table: ReplicatedTable): Target[] {
    const shards = this.options.shards ?? [];
    if (shards.length === 0 || table.partition === 'whole') return [this.targetOf(table, 0)];
    return shards.map((_, i) => this.targetOf(table, i));
  }

  /** The DuckDB columns of a table, organization_id last where it is borrowed from the parent. */
  private columnsOf(table: ReplicatedTable): string[] {
    const schema = this.schemas.find((s) => s.table === table);
    if (schema === undefined) throw new Error(`replicator not prepared (table ${table.name})`);
    return schema.columns.map(([column]) => column);
  }

  /** A fingerprint of one organization's dimension rows (a count and a sum of row hashes per table). */
  private dimensionsFingerprint(organizationId: number): Promise<string> {
    const selects = DIMENSION_TABLES.map((table) =>
      table.organizationOf === undefined
        ? `SELECT t FROM ${table.name} t WHERE t.organization_id = $1`
        : `SELECT t FROM ${table.name} t JOIN ${table.organizationOf.parent} p ON p.id = t.${table.organizationOf.column}
            WHERE p.organization_id = $1`,
    );
    return this.db.read((r) => fingerprintOf(r, selects, [organizationId]));
  }
}

/** Count and sum of hash(row) of each SELECT (whose one column `t` is the row), hashed together. */
async function fingerprintOf(
  r: Executor,
  selects: readonly string[],
  params: readonly (number | string)[],
): Promise<string> {
  const parts = selects.map(
    (select, i) => `(SELECT count(*) || ':' || coalesce(sum(hash(t)), 0) FROM (${select})) AS p${i}`,
  );
  const row = await r.one<Record<string, string>>(`SELECT ${parts.join(', ')}`, [...params]);
  return createHash('sha256')
    .update(Object.values(row ?? {}).join('|'))
    .digest('hex')
    .slice(0, 24);
}

export { ClickHouseFailure };
