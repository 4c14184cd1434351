import { startClickHouseFacts } from './clickhouse/facts/clickhouse-facts.js';
import { startClickHouseReports, type ClickHouseReports } from './clickhouse/clickhouse-reports.js';
import { clickhouseSql } from './clickhouse/clickhouse-sql.js';
import type { ServiceConfig } from './config/config.js';
import type { ExportService } from './reporting/export-stream.js';
import { DuckDbReportEngine, type ReportEngineSelector } from './reporting/report-engine.js';
import type { ReportEngineName } from './reporting/report-engines.js';
import { duckdbDialect } from './sql/compile-report.js';
import type { SqlDialect } from './sql/dialect.js';
import { duckdbFactWriter, type FactWriter } from './statistics/fact-writer.js';
import { PostgresStore, StoreConfigurationError } from './store/postgres/postgres-store.js';
import type { Store } from './store/store.js';

/** What an engine gets to start: the service's settings, its store and export slots. */
export interface EngineContext {
  readonly config: ServiceConfig;
  readonly db: Store;
  /** The HTTP exports' slots and the report jobs' own (DuckDB's named-pipe exports). */
  readonly exports: ExportService;
  readonly jobExports: ExportService;
  readonly log: (line: string) => void;
}

/** An engine once started: what the composition root wires into the services (issue 38 item 4). */
export interface RunningEngine {
  readonly name: ReportEngineName;
  /** Executor: who runs an organization's reports over HTTP, and report jobs' exports. */
  readonly reports: ReportEngineSelector;
  readonly jobReports: ReportEngineSelector;
  /** Writer: where a statistics sync puts facts; undefined when the deployment has no home for them. */
  readonly writer: FactWriter | undefined;
  /** Replica: the copy of the store's report data that the engine follows, where it has one. */
  readonly replica: ClickHouseReports | undefined;
  close(): Promise<void>;
}

/**
 * What an engine is: its name (REPORT_ENGINES), the dialect its statements are compiled in, where
 * its schema comes from, and how it starts (executor, writer, replica). ENGINE_PLUGINS has one
 * per name, so a name added to REPORT_ENGINES does not compile until it has its plugin.
 */
export interface EnginePlugin {
  readonly name: ReportEngineName;
  readonly dialect: SqlDialect;
  /** Where its tables' shape comes from, for help and logs. */
  readonly schema: string;
  start(context: EngineContext): Promise<RunningEngine>;
}

const duckdb: EnginePlugin = {
  name: 'duckdb',
  dialect: duckdbDialect,
  schema: "the store's migrations (src/store/migrations)",
  async start({ db, exports, jobExports }) {
    return {
      name: 'duckdb',
      reports: new DuckDbReportEngine(db, exports),
      jobReports: new DuckDbReportEngine(db, jobExports),
      // PostgreSQL alone holds no facts: nothing is fetched.
      writer: db.dialect.servesReports ? duckdbFactWriter : undefined,
      replica: undefined,
      close: async () => undefined,
    };
  },
};

const clickhouse: EnginePlugin = {
  name: 'clickhouse',
  dialect: clickhouseSql.dialect,
  schema: "the store's migrations, as ClickHouse types (clickhouse schema prints them)",
  async start({ config, db, exports, jobExports, log }) {
    const limits = { concurrency: config.database.reportConcurrency * 2, maxQueued: config.database.maxQueued };
    if (config.facts === 'clickhouse') {
      // Facts live in ClickHouse (issue 38): it runs every report and takes every sync's rows.
      if (!(db instanceof PostgresStore))
        throw new StoreConfigurationError(
          '--facts clickhouse needs the PostgreSQL store (--store postgres://...): ClickHouse reads the dimensions from it',
        );
      const facts = await startClickHouseFacts(
        clickhouseSql,
        {
          url: config.clickhouseUrl,
          shardUrls: config.clickhouseShardUrls,
          cluster: config.clickhouseCluster,
          postgresUrl: config.clickhousePostgresUrl ?? config.storeUrl!,
          ...limits,
        },
        log,
      );
      return {
        name: 'clickhouse',
        reports: facts.engine,
        jobReports: facts.engine,
        writer: facts.writer,
        replica: undefined,
        close: () => facts.close(),
      };
    }
    // A replica of the DuckDB file (issue 22): DuckDB answers until an organization is copied, and report jobs.
    const replica = await startClickHouseReports(
      db,
      new DuckDbReportEngine(db, exports),
      clickhouseSql,
      {
        url: config.clickhouseUrl,
        dbPath: config.dbPath,
        fallback: config.clickhouseFallback,
        shardUrls: config.clickhouseShardUrls,
        ...limits,
      },
      log,
    );
    return {
      name: 'clickhouse',
      reports: replica.selection,
      jobReports: new DuckDbReportEngine(db, jobExports),
      writer: db.dialect.servesReports ? duckdbFactWriter : undefined,
      replica,
      close: () => replica.close(),
    };
  },
};

export const ENGINE_PLUGINS: { readonly [N in ReportEngineName]: EnginePlugin & { readonly name: N } } = {
  duckdb: { ...duckdb, name: 'duckdb' },
  clickhouse: { ...clickhouse, name: 'clickhouse' },
};

/** The engine a configuration runs: ClickHouse wherever the facts live there, else `reportEngine`. */
export function configuredEngine(config: Pick<ServiceConfig, 'facts' | 'reportEngine'>): EnginePlugin {
  return ENGINE_PLUGINS[config.facts === 'clickhouse' ? 'clickhouse' : config.reportEngine];
}
