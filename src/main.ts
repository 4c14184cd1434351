import fs from 'node:fs';
import path from 'node:path';
import { Authenticator } from './auth/authenticator.js';
import { keyFilePathFor } from './auth/key-file.js';
import { SigningKeys } from './auth/signing-keys.js';
import { DisabledClients } from './auth/disabled-clients.js';
import { FailureSlowdown } from './auth/failure-slowdown.js';
import { TokenIssuer } from './auth/token-issuer.js';
import { VerifiedSecretCache } from './auth/verified-secret-cache.js';
import { filesAnchor, type ServiceConfig } from './config/config.js';
import { seedDemoData } from './demo/demo-data.js';
import { seedDemo, type DemoSeed } from './demo/demo-seed.js';
import { buildApp, servedRoutes } from './http/app.js';
import { loadExplorerAssets } from './http/explorer-assets.js';
import type { ErrorLogger } from './http/error-mapper.js';
import { listenApi, listenPlainHttpRefusal, type Listener } from './http/listeners.js';
import { legacyTlsDirFor, loadTls, tlsDirFor, type TlsMaterial } from './http/tls.js';
import { AccountService } from './provisioning/accounts/account-service.js';
import { jobHandlers } from './jobs/handlers/index.js';
import { JobRunner } from './jobs/job-runner.js';
import { queueAutoImports } from './jobs/platform-sync.js';
import { queueTrailingSyncs } from './jobs/statistics-sync-queue.js';
import { CampaignService } from './provisioning/campaigns/campaign-service.js';
import { CampaignCopyService } from './provisioning/campaigns/campaign-copy-service.js';
import { OrganizationService } from './organizations/organization-service.js';
import { JobService } from './jobs/job-service.js';
import { LabelService } from './provisioning/labels/label-service.js';
import { MarkupService } from './provisioning/markups/markup-service.js';
import { ExportService } from './reporting/export-stream.js';
import { ReportService } from './reporting/report-service.js';
import { ReportFiles } from './report-jobs/report-files.js';
import { ReportJobRunner } from './report-jobs/report-job-runner.js';
import { ReportJobService } from './report-jobs/report-job-service.js';
import { ReportViewService } from './report-views/report-view-service.js';
import type { ClickHouseReports } from './clickhouse/clickhouse-reports.js';
import { configuredEngine, type RunningEngine } from './engines.js';
import { PageCache } from './reporting/page-cache.js';
import { parseSandboxFaults, SandboxPlatforms } from './platforms/sandbox/index.js';
import { PlatformAccountService } from './provisioning/platform-accounts/platform-account-service.js';
import { CostBuckets, TokenBuckets, type RateBuckets } from './shared/token-bucket.js';
import { SharedBuckets } from './store/postgres/shared-buckets.js';
import { lowerWorkerThreads } from './runtime/thread-priority.js';
import { Database } from './store/database.js';
import { migrate } from './store/migrate.js';
import { migratePostgres } from './store/postgres/postgres-migrate.js';
import { PostgresStore } from './store/postgres/postgres-store.js';
import {
  SqlEndpointConfigurationError,
  startSqlEndpoint,
  type RunningSqlEndpoint,
} from './sql-endpoint/sql-endpoint.js';
import type { Store } from './store/store.js';
import { WorkLeases } from './store/work-leases.js';
import { loadFxReference } from './reference/fx-rates.js';
import { ChangeCursors } from './changes/change-cursor.js';
import { ChangeFeed } from './changes/change-feed.js';
import { PublicEventIds } from './events/public-event-id.js';
import { VERSION } from './version.js';
import { DeliveryWorker } from './webhooks/delivery-worker.js';
import { SecretBox, webhookKeyPathFor } from './webhooks/secret-box.js';
import { createMcpEndpoint } from './mcp/mcp-endpoint.js';
import { systemLookup, type Lookup } from './webhooks/target-address.js';
import { WebhookService } from './webhooks/webhook-service.js';

export interface ServiceIo {
  logError: ErrorLogger;
  /** Progress lines (ClickHouse replication); none when left out. */
  log?: (line: string) => void;
  nowMs?: () => number;
  /**
   * Node's own threads, listed at process start: given, every later thread (libuv's pool, DuckDB's
   * workers) gets config.database.workerNice once the service is up. Tests running the service
   * inside their own process leave it out.
   */
  nodeThreads?: ReadonlySet<number> | undefined;
  /** Where the built explorer is (default: dist/explorer of this package, what `npm run build` writes). */
  explorerDir?: string;
  /** Resolves webhook targets at creation and at every delivery (default: the system's, dns.lookup). */
  webhookLookup?: Lookup;
}

export interface RunningService {
  readonly db: Store;
  readonly port: number;
  readonly httpPort: number | undefined;
  /** The SQL endpoint's port (`--sql-port`), when it runs. */
  readonly sqlPort: number | undefined;
  readonly url: string;
  readonly tls: TlsMaterial | undefined;
  readonly demo: DemoSeed | undefined;
  readonly disabledClients: DisabledClients;
  /** The token keys in memory (re-read from the key file when it changes). */
  readonly signingKeys: SigningKeys;
  /** The embedded sandbox platforms (tests switch their faults on). */
  readonly platforms: SandboxPlatforms;
  readonly jobRunner: JobRunner;
  /** Runs report jobs (tests pause it to hold jobs QUEUED). */
  readonly reportJobRunner: ReportJobRunner;
  /** Queues jobs (tests and admin paths start syncs through it). */
  readonly jobs: JobService;
  /** Reports and exports, with the service's export slots (the admin channel's `export` uses them). */
  readonly reports: ReportService;
  /** Sends webhook deliveries (tests wake it). */
  readonly webhookDeliveries: DeliveryWorker;
  /** The ClickHouse replica and engine under `--report-engine clickhouse`. */
  readonly clickhouse: ClickHouseReports | undefined;
  readonly routes: ReadonlyArray<{ method: string; path: string }>;
  close(): Promise<void>;
}

/** A listener's port is taken; `setting` says which one (`port` or `httpPort`), so the CLI can name its flag. */
export class PortInUseError extends Error {
  constructor(
    readonly setting: 'port' | 'httpPort' | 'sqlPort',
    readonly port: number,
    readonly host: string,
  ) {
    super(`port ${port} is in use on ${host}`);
    this.name = 'PortInUseError';
  }
}

function portInUse(setting: 'port' | 'httpPort' | 'sqlPort', port: number, host: string): (error: unknown) => never {
  return (error) => {
    throw (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE'
      ? new PortInUseError(setting, port, host)
      : error;
  };
}

/** How often the change feed deletes rows older than seven days. */
const CHANGE_PURGE_MS = 3600_000;

/** Composition root: open the store, build the services, serve. Nothing else wires things up. */
export async function startService(config: ServiceConfig, io: ServiceIo): Promise<RunningService> {
  const nowMs = io.nowMs ?? Date.now;
  const { dbTimeMsPerSecond, dbTimeBurstMs } = config.rateLimit;
  const dbTime = dbTimeMsPerSecond > 0 ? new CostBuckets(dbTimeMsPerSecond, dbTimeBurstMs) : undefined;
  const anchor = filesAnchor(config);
  const db: Store = config.storeUrl
    ? await PostgresStore.open(config.storeUrl, {
        connections: config.database.readConnections + config.database.reportConcurrency,
        maxQueued: config.database.maxQueued,
        log: io.log,
      })
    : await Database.open(config.dbPath, {
        ...config.database,
        // Report jobs export on connections of their own, so they never take the HTTP exports' slots.
        exportConnections: config.exports.maxConcurrent + config.reportJobs.concurrency,
        onReportTime: dbTime && ((organizationId, ms) => dbTime.charge(String(organizationId), ms, nowMs())),
      });
  const listeners: Listener[] = [];
  let disabledClients: DisabledClients | undefined;
  let signingKeys: SigningKeys | undefined;
  let jobRunner: JobRunner | undefined;
  let webhookDeliveries: DeliveryWorker | undefined;
  let platformSync: NodeJS.Timeout | undefined;
  let statisticsSync: NodeJS.Timeout | undefined;
  let clickhouse: ClickHouseReports | undefined;
  let engine: RunningEngine | undefined;
  let reportJobRunner: ReportJobRunner | undefined;
  let changes: ChangeFeed | undefined;
  let leases: WorkLeases | undefined;
  let sqlEndpoint: RunningSqlEndpoint | undefined;
  try {
    if (db instanceof Database) await migrate(db);
    else await migratePostgres(db as PostgresStore);
    const exports = new ExportService(db, config.exports.maxConcurrent, {
      maxPerOrganization: config.exports.maxPerOrganization,
      idleTimeoutMs: config.exports.idleTimeoutMs,
    });
    // Report jobs export on slots of their own.
    const jobExports = new ExportService(db, config.reportJobs.concurrency, {
      maxPerOrganization: Math.min(config.reportJobs.concurrency, config.reportJobs.maxRunningPerOrganization),
    });
    // The report engine (src/engines.ts) before anything could write a fact: it says where facts go.
    engine = await configuredEngine(config).start({
      config,
      db,
      exports,
      jobExports,
      log: io.log ?? (() => undefined),
    });
    clickhouse = engine.replica;
    const servesReports = engine.writer !== undefined;
    const facts = engine.writer;
    // FX rates convert facts; a deployment without facts needs none.
    if (servesReports) await loadFxReference(db);
    const now = () => new Date(nowMs());
    // Keys come after the migrations: migration 8 moves a key the database still holds into the file.
    signingKeys = config.tokenSigningKey
      ? SigningKeys.fromEnvironment(config.tokenSigningKey, config.tokenPreviousKeys)
      : SigningKeys.openFile({
          keyFile: keyFilePathFor(anchor),
          ttlSeconds: config.tokenTtlSeconds,
          refreshMs: config.keyFileRefreshMs,
          now,
          onError: (error) => io.logError({ requestId: '-', method: '-', path: 'token key file refresh', error }),
        });
    signingKeys.start();
    const keys = signingKeys;
    const platforms = new SandboxPlatforms(db, {
      now,
      faults: config.sandboxFaults ? parseSandboxFaults(config.sandboxFaults) : undefined,
    });
    const demo = config.demo ? await seedDemo(db, platforms) : undefined;
    disabledClients = new DisabledClients(db, config.clientStatusRefreshMs, (error) =>
      io.logError({ requestId: '-', method: '-', path: 'disabled-clients refresh', error }),
    );
    await disabledClients.start();

    leases = new WorkLeases(db, (error) => io.logError({ requestId: '-', method: '-', path: 'work leases', error }));
    await leases.start();
    const workLeases = leases;
    // Handlers queue follow-up jobs through the service, which wakes the runner built next.
    const jobs = new JobService(db, { wake: () => jobRunner?.wake() }, now);
    jobRunner = new JobRunner(db, jobHandlers({ db, platforms, jobs, now, statistics: config.statistics, facts }), {
      now,
      ...config.jobs,
      leases: workLeases,
      log: ({ jobId, error }) => io.logError({ requestId: `job-${jobId}`, method: '-', path: 'job runner', error }),
    });

    const webhookSecrets = config.webhooks.secretKey
      ? SecretBox.fromKey(config.webhooks.secretKey)
      : SecretBox.openFile(webhookKeyPathFor(anchor));
    // Ids that one sequence numbers for every organization reach clients sealed or keyed (issue 36 item 10).
    const eventIds = new PublicEventIds(webhookSecrets.derivedKey('public event ids'));
    webhookDeliveries = new DeliveryWorker(db, webhookSecrets, {
      now,
      concurrency: config.webhooks.concurrency,
      attemptTimeoutMs: config.webhooks.attemptTimeoutMs,
      retry: { baseMs: config.webhooks.retryBaseMs, maxMs: config.webhooks.retryMaxMs },
      pollMs: config.webhooks.pollMs,
      allowPrivate: config.webhooks.allowPrivate,
      lookup: io.webhookLookup ?? systemLookup,
      extraCa: config.webhooks.caFile ? [fs.readFileSync(config.webhooks.caFile, 'utf8')] : [],
      userAgent: `adreport-webhooks/${VERSION}`,
      leases: workLeases,
      eventIds,
      log: ({ deliveryId, error }) =>
        io.logError({ requestId: `webhook-delivery-${deliveryId}`, method: '-', path: 'webhook deliveries', error }),
    });
    const deliveries = webhookDeliveries;
    const webhooks = new WebhookService(db, webhookSecrets, {
      allowPrivate: config.webhooks.allowPrivate,
      lookup: io.webhookLookup ?? systemLookup,
      now,
      wake: () => deliveries.wake(),
      eventIds,
    });

    // One process owns the file, so its buckets in memory are exact; replicas share theirs in PostgreSQL.
    const buckets = (policy: string, ratePerSecond: number, burst: number): RateBuckets =>
      db instanceof PostgresStore
        ? new SharedBuckets(db, policy, ratePerSecond, burst)
        : new TokenBuckets(ratePerSecond, burst);
    const accounts = new AccountService(db, jobs);
    const platformAccounts = new PlatformAccountService(db, platforms, jobs);
    const markups = new MarkupService(db);
    if (config.demoData && demo?.created) {
      await seedDemoData(
        {
          accounts,
          platformAccounts,
          addMarkup: (organizationId, accountId, markup) => markups.create(organizationId, accountId, markup),
        },
        demo.organization,
        demo.masterAccounts,
        now().toISOString().slice(0, 10),
      );
    }
    // One per-client bucket for REST and the SQL endpoint: a client's requests count wherever they arrive.
    const apiRate = buckets('api', config.rateLimit.ratePerSecond, config.rateLimit.burst);
    const pages = new PageCache(Math.floor(config.cacheMb * 2 ** 20));
    const reports = new ReportService(db, now, exports, pages, { rollups: config.rollups }, engine.reports);
    // Report jobs: exports into files, on the engine's job executor.
    const jobReports = new ReportService(
      db,
      now,
      jobExports,
      undefined,
      { rollups: config.rollups },
      engine.jobReports,
    );
    const reportFiles = new ReportFiles(path.join(path.dirname(path.resolve(anchor)), 'report-files'));
    const filesBytes = Math.floor(config.reportJobs.filesMb * 2 ** 20);
    reportJobRunner = new ReportJobRunner(db, jobReports, reportFiles, {
      now,
      concurrency: config.reportJobs.concurrency,
      maxRunningPerOrganization: config.reportJobs.maxRunningPerOrganization,
      filesBytes,
      pollMs: config.jobs.pollMs,
      leases: workLeases,
      log: ({ jobId, error }) =>
        io.logError({ requestId: `report-job-${jobId}`, method: '-', path: 'report job runner', error }),
    });
    const reportJobs = new ReportJobService(db, jobReports, reportFiles, reportJobRunner, now, {
      maxUnfinishedPerOrganization: config.reportJobs.maxUnfinishedPerOrganization,
      filesBytes,
    });
    changes = new ChangeFeed(db, now, new ChangeCursors(webhookSecrets.derivedKey('change cursors')));
    await changes.start(CHANGE_PURGE_MS, (error) =>
      io.logError({ requestId: '-', method: '-', path: 'change feed purge', error }),
    );
    // The MCP tools answer through the app's own REST routes, as their caller (src/mcp/rest-gateway.ts).
    const mcp = createMcpEndpoint({
      appFetch: async (request) => app.fetch(request),
      version: VERSION,
      log: (line) => io.log?.(`mcp: ${line}`),
    });
    const app = buildApp({
      mcp,
      organizations: new OrganizationService(db),
      accounts,
      platformAccounts,
      jobs,
      labels: new LabelService(db),
      campaigns: new CampaignService(db, platforms, jobs),
      campaignCopies: new CampaignCopyService(db, platforms, jobs),
      markups,
      reports,
      webhooks,
      reportJobs,
      reportViews: new ReportViewService(db, now),
      changes,
      explorer: loadExplorerAssets(io.explorerDir),
      authenticator: new Authenticator(keys, disabledClients, nowMs),
      tokenIssuer: new TokenIssuer({
        db,
        keys,
        ttlSeconds: config.tokenTtlSeconds,
        nowMs,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        slowdown: new FailureSlowdown(),
        verifiedSecrets: new VerifiedSecretCache(),
        issueRate: buckets('token', config.rateLimit.tokenRatePerSecond, config.rateLimit.tokenBurst),
      }),
      apiRate,
      redeliveryRate: buckets(
        'redelivery',
        config.rateLimit.redeliveriesPerMinute / 60,
        config.rateLimit.redeliveryBurst,
      ),
      dbTime,
      trustProxy: config.trustProxy,
      serverTiming: config.serverTiming,
      reportsServed: servesReports,
      nowMs,
      logError: io.logError,
      logInfo: io.log,
      version: VERSION,
    });

    const plainBehindProxy = config.trustProxy && !config.tlsCert;
    const tls = plainBehindProxy
      ? undefined
      : await loadTls({
          tlsCert: config.tlsCert,
          tlsKey: config.tlsKey,
          dir: tlsDirFor(anchor),
          legacyDir: legacyTlsDirFor(anchor),
          nowMs: nowMs(),
        });
    if (tls?.note) io.log?.(tls.note);
    const api = await listenApi(app.fetch, {
      host: config.host,
      port: config.port,
      tls,
      limits: config.http,
      log: io.log,
    }).catch(portInUse('port', config.port, config.host));
    listeners.push(api);
    if (config.httpPort !== undefined) {
      listeners.push(
        await listenPlainHttpRefusal({ host: config.host, port: config.httpPort, limits: config.http }).catch(
          portInUse('httpPort', config.httpPort, config.host),
        ),
      );
    }
    if (config.sqlPort !== undefined) {
      if (!(db instanceof Database) || !servesReports) {
        throw new SqlEndpointConfigurationError(
          '--sql-port needs the embedded DuckDB store and its facts (not --store)',
        );
      }
      if (!tls)
        throw new SqlEndpointConfigurationError(
          '--sql-port needs TLS: give --tls-cert and --tls-key behind --trust-proxy',
        );
      sqlEndpoint = await startSqlEndpoint({
        host: config.host,
        port: config.sqlPort,
        tls,
        db,
        apiRate,
        dbTime,
        nowMs,
        maxRows: config.sqlEndpoint.maxRows,
        maxConnections: config.sqlEndpoint.maxConnections,
        mockSecret: webhookSecrets.derivedKey('sql endpoint mock salts'),
        version: VERSION,
        log: io.log,
        logError: (error) => io.logError({ requestId: '-', method: '-', path: 'sql endpoint', error }),
      }).catch(portInUse('sqlPort', config.sqlPort, config.host));
    }
    const sql = sqlEndpoint;
    await jobRunner.start();
    await webhookDeliveries.start();
    await reportJobRunner.start();
    // The periodic platform sync: campaigns created later at a platform get imported too.
    platformSync = setInterval(() => {
      queueAutoImports(db, jobs).catch((error: unknown) =>
        io.logError({ requestId: '-', method: '-', path: 'platform sync', error }),
      );
    }, config.platformSyncMs);
    platformSync.unref();
    // The scheduled statistics sync: the trailing window, so restated days are replaced.
    if (servesReports)
      statisticsSync = setInterval(() => {
        queueTrailingSyncs(db, jobs, now(), config.statistics.trailingDays).catch((error: unknown) =>
          io.logError({ requestId: '-', method: '-', path: 'statistics sync', error }),
        );
      }, config.statistics.syncMs);
    statisticsSync?.unref();
    // Every thread is up by now: libuv's pool started with the store, DuckDB's workers with its instance.
    if (io.nodeThreads && config.database.workerNice > 0)
      lowerWorkerThreads(io.nodeThreads, config.database.workerNice);

    let closing: Promise<void> | undefined;
    const stoppable = disabledClients;
    const runner = jobRunner;
    const reportRunner = reportJobRunner;
    const feed = changes;
    return {
      db,
      port: api.port,
      httpPort: listeners[1]?.port,
      sqlPort: sql?.port,
      url: `${tls ? 'https' : 'http'}://localhost:${api.port}`,
      tls,
      demo,
      disabledClients,
      signingKeys: keys,
      platforms,
      jobRunner: runner,
      reportJobRunner: reportRunner,
      jobs,
      webhookDeliveries: deliveries,
      reports,
      clickhouse,
      routes: servedRoutes(app),
      close() {
        closing ??= (async () => {
          // Exports can run for minutes: they end now, with their error line, rather than hold up the shutdown.
          // A report job still running stays RUNNING and reruns at the next start.
          await Promise.all([
            exports.close(),
            reportRunner.stop(config.shutdownTimeoutMs).then(() => jobExports.close()),
            ...listeners.map((l) => l.close(config.shutdownTimeoutMs)),
            sql?.close(),
          ]);
          await mcp.close();
          // A job still running then stays RUNNING and resumes at the next start.
          clearInterval(platformSync);
          clearInterval(statisticsSync);
          feed.stop();
          await runner.stop(config.shutdownTimeoutMs);
          await deliveries.stop(config.shutdownTimeoutMs);
          await workLeases.stop();
          await engine?.close();
          stoppable.stop();
          keys.stop();
          await db.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await Promise.all(listeners.map((l) => l.close(0)));
    await sqlEndpoint?.close().catch(() => undefined);
    clearInterval(platformSync);
    clearInterval(statisticsSync);
    changes?.stop();
    await jobRunner?.stop(0);
    await webhookDeliveries?.stop(0);
    await reportJobRunner?.stop(0);
    await leases?.stop();
    await engine?.close().catch(() => undefined);
    disabledClients?.stop();
    signingKeys?.stop();
    await db.close().catch(() => undefined);
    throw error;
  }
}
