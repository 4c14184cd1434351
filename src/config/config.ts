import path from 'node:path';
import { z } from 'zod';

/** Scopes a client may hold; each unlocks one API prefix. */
export const SCOPES = ['provisioning', 'reporting'] as const;
export type Scope = (typeof SCOPES)[number];

export const DEFAULT_DB_PATH = path.join('data', 'adreport.duckdb');

const positiveInt = z.coerce.number().int().positive();

/**
 * Everything the service reads from flags and the environment, parsed once at start.
 * Flags win over ADREPORT_* variables, which win over the defaults.
 */
export const serviceConfigSchema = z.object({
  dbPath: z.string().min(1).default(DEFAULT_DB_PATH),
  /**
   * postgres://user:password@host:port/database: the service's own state in PostgreSQL, shared
   * by any number of replicas (issue 37); without it, everything lives in the DuckDB file `dbPath`.
   */
  storeUrl: z.string().min(1).optional(),
  /**
   * The directory every replica of a PostgreSQL deployment shares (token and webhook key files,
   * the self-signed TLS pair, report files); default: the directory of `dbPath`.
   */
  filesDir: z.string().min(1).optional(),
  host: z.string().default('0.0.0.0'),
  port: z.coerce.number().int().min(0).max(65535).default(8443),
  httpPort: z.coerce.number().int().min(0).max(65535).optional(),
  /** The SQL endpoint's port (PostgreSQL protocol over TLS, issue 41); off when unset. */
  sqlPort: z.coerce.number().int().min(0).max(65535).optional(),
  sqlEndpoint: z
    .object({
      /** Rows one statement may answer; a statement past it is an error (54000), never a short answer. */
      maxRows: positiveInt.default(1_000_000),
      /** Connections the endpoint keeps at once; one more is refused with 53300. */
      maxConnections: positiveInt.default(64),
    })
    .default({ maxRows: 1_000_000, maxConnections: 64 }),
  tlsCert: z.string().optional(),
  tlsKey: z.string().optional(),
  trustProxy: z.boolean().default(false),
  /** Server-Timing on every answer: wall and CPU per layer of the request (the bench's --profile). */
  serverTiming: z.boolean().default(false),
  demo: z.boolean().default(false),
  /**
   * With `demo`: also demo accounts linked to sandbox platform accounts with autoImport on, so
   * the first start imports their campaigns and fetches their history (statistics.backfillDays).
   */
  demoData: z.boolean().default(false),
  tokenTtlSeconds: positiveInt.default(3600),
  /**
   * Token keys from a secret store instead of the key file beside the database: this one signs,
   * the comma-separated previous ones only verify (hex or base64, 32+ bytes each).
   */
  tokenSigningKey: z.string().min(1).optional(),
  tokenPreviousKeys: z.string().optional(),
  /** How often the key file is checked, so `adreport keys rotate` reaches a running server. */
  keyFileRefreshMs: positiveInt.max(60_000).default(1_000),
  /** How often the disabled-client list is re-read, so a disabled client's tokens die within 60 s. */
  clientStatusRefreshMs: positiveInt.max(60_000).default(15_000),
  rateLimit: z
    .object({
      /** Sustained API requests per second per client. */
      ratePerSecond: positiveInt.default(50),
      burst: positiveInt.default(100),
      /** Token requests per second per client id; tokens last an hour, so few are needed. */
      tokenRatePerSecond: positiveInt.default(20),
      tokenBurst: positiveInt.default(40),
      /**
       * Webhook redeliveries per minute per organization, and the burst: each is an outbound POST
       * (with its retries) to the organization's receiver, so they get a bucket of their own.
       */
      redeliveriesPerMinute: positiveInt.default(60),
      redeliveryBurst: positiveInt.default(20),
      /**
       * Report query time per organization (README, Fair scheduling): ms of database time refilled
       * per second (1000 = one core's worth) and the burst; 0 turns the cost-based limit off.
       */
      dbTimeMsPerSecond: z.coerce.number().int().min(0).default(1000),
      dbTimeBurstMs: positiveInt.default(5000),
    })
    .prefault({}),
  database: z
    .object({
      /** Connections of the cheap lane: every read that is not a report (provisioning, organization, tokens, jobs). */
      readConnections: positiveInt.max(32).default(4),
      /**
       * Report queries in flight at once (the report lane's slots, a connection each); the rest wait
       * per organization, served round-robin. 3 measured best on 2 cores (README, Fair scheduling).
       */
      reportConcurrency: positiveInt.max(16).default(3),
      /**
       * Report queries that may run beyond those slots, one each for an organization with nothing
       * running, so another tenant's flood never makes it wait (README, Fair scheduling).
       */
      reportReserve: z.coerce.number().int().min(0).max(4).default(1),
      /** Queries waiting for a connection beyond this get 503 instead of unbounded latency. */
      maxQueued: z.coerce.number().int().min(0).default(256),
      memoryLimit: z
        .string()
        .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i)
        .optional(),
      threads: positiveInt.optional(),
      /**
       * Nice value of the threads that run queries (libuv's pool, DuckDB's workers) under `serve`,
       * so the event loop gets a core first; 0 leaves them as they are.
       */
      workerNice: z.coerce.number().int().min(0).max(19).default(10),
    })
    .prefault({}),
  exports: z
    .object({
      /** Exports running at once; each holds a read connection for its whole length, so fewer than readConnections. */
      maxConcurrent: positiveInt.max(16).default(2),
      /**
       * Exports one organization may run at once, so that one tenant cannot take every slot;
       * default maxConcurrent - 1 (at least 1).
       */
      maxPerOrganization: positiveInt.max(16).optional(),
      /** An export whose client took no bytes for this long is aborted: connection closed, query stopped, slot freed. */
      idleTimeoutMs: positiveInt.max(3_600_000).default(30_000),
    })
    .refine(
      (exports) => exports.maxPerOrganization === undefined || exports.maxPerOrganization <= exports.maxConcurrent,
      {
        message: 'exports.maxPerOrganization must be at most exports.maxConcurrent',
        path: ['maxPerOrganization'],
      },
    )
    .transform((exports) => ({
      ...exports,
      maxPerOrganization: exports.maxPerOrganization ?? Math.max(1, exports.maxConcurrent - 1),
    }))
    .prefault({}),
  /** Report jobs (/reporting/v0/report-jobs): exports written to files under the data directory. */
  reportJobs: z
    .object({
      /** Report jobs running at once in the service; each holds an export connection of its own. */
      concurrency: positiveInt.max(16).default(2),
      /** Report jobs of one organization running at once; more wait QUEUED. */
      maxRunningPerOrganization: positiveInt.max(16).default(2),
      /** Report jobs of one organization QUEUED or RUNNING; a POST beyond is 429. */
      maxUnfinishedPerOrganization: positiveInt.max(1000).default(10),
      /** Stored report files per organization in MiB (ADREPORT_REPORT_FILES_MB); a POST at or beyond is 429. */
      filesMb: z.coerce.number().positive().max(1_048_576).default(1024),
    })
    .prefault({}),
  shutdownTimeoutMs: positiveInt.default(10_000),
  /**
   * The page cache of rendered JSON report answers, in MiB (ADREPORT_CACHE_MB); 0 turns it off
   * (ETags and 304s stay). One page may take at most an eighth of it.
   */
  cacheMb: z.coerce.number().min(0).max(1_048_576).default(64),
  /** Connection and request limits of the listeners (README: HTTPS, connection limits). */
  http: z
    .object({
      /**
       * A connection must finish its TLS handshake this long after it was accepted, else it is
       * destroyed; on the HTTPS port this also bounds the wait for the first byte.
       */
      tlsHandshakeTimeoutMs: positiveInt.default(10_000),
      /** A request head (request line and headers) must arrive within this; else 408. */
      headersTimeoutMs: positiveInt.default(20_000),
      /** A whole request, body included, must arrive within this; else 408. The response may take longer. */
      requestTimeoutMs: positiveInt.default(60_000),
      /**
       * A connection whose client takes no bytes of a response for this long while the server has
       * bytes waiting for it is closed (and logged). Twice the export idle timeout by default: an
       * export that stalls ends with its error line first, and the client has as long again to read it.
       */
      writeIdleTimeoutMs: positiveInt.default(60_000),
      /** Open connections of a listener; more are closed at accept. Keep it below the descriptor limit (ulimit -n). */
      maxConnections: positiveInt.default(10_000),
      /** Open connections from one remote address (IPv6: one /64); more are reset. Not applied behind --trust-proxy. */
      maxConnectionsPerIp: positiveInt.default(256),
    })
    .refine((http) => http.headersTimeoutMs <= http.requestTimeoutMs, {
      message: 'headersTimeoutMs must not exceed requestTimeoutMs',
      path: ['headersTimeoutMs'],
    })
    .prefault({}),
  jobs: z
    .object({
      concurrency: positiveInt.max(16).default(2),
      /** First retry of a retryable platform failure after this, doubling each attempt. */
      backoffBaseMs: positiveInt.default(2_000),
      maxBackoffMs: positiveInt.default(60_000),
      pollMs: positiveInt.default(5_000),
    })
    .prefault({}),
  /** How often every account with autoImport on looks for new campaigns at its platforms. */
  platformSyncMs: positiveInt.default(3_600_000),
  statistics: z
    .object({
      /** History fetched when a campaign is imported. */
      backfillDays: positiveInt.max(1827).default(400),
      /** Days the scheduled sync replaces; longer than the platforms' 14-day conversion lag. */
      trailingDays: positiveInt.max(92).default(30),
      /** How often the scheduled statistics sync runs. */
      syncMs: positiveInt.default(21_600_000),
    })
    .prefault({}),
  /**
   * Reports of accounts, platform accounts and campaigns read rollup tables instead of the facts
   * where they answer the plan (README, Aggregate navigation); false: always the facts.
   */
  rollups: z.boolean().default(true),
  /**
   * Which engine runs reports (issue 22). clickhouse: a replica of what reports read, copied from
   * DuckDB (still the system of record); `clickhouseUrl` names a server, else it is embedded under
   * `<db dir>/clickhouse`. `clickhouseFallback`: what a report of a replicated organization gets
   * while ClickHouse does not answer: 503 with Retry-After (`unavailable`) or DuckDB.
   */
  reportEngine: z.enum(['duckdb', 'clickhouse']).default('duckdb'),
  clickhouseUrl: z
    .string()
    .refine(isHttpUrl, 'must be an http(s) URL such as https://user:password@host:8443/database')
    .optional(),
  clickhouseFallback: z.enum(['unavailable', 'duckdb']).default('unavailable'),
  /**
   * A sharded cluster: one URL per shard (a node of it), comma-separated, in its remote_servers
   * order. Replication writes each organization's partitions to its shard's local tables; reports
   * read the Distributed tables at `clickhouseUrl`.
   */
  clickhouseShardUrls: z
    .string()
    .transform((text) => text.split(',').map((url) => url.trim()))
    .refine(
      (shards) => shards.every((replicas) => replicas.split('|').every((url) => isHttpUrl(url.trim()))),
      'must be http(s) URLs, commas between shards, | between the replicas of one shard',
    )
    .optional(),
  /**
   * Where facts live (issue 38): `duckdb`, the embedded file (or the DuckDB that the ClickHouse
   * replica copies from); `clickhouse`, written straight to ClickHouse (`clickhouseShardUrls`, a
   * cluster, or `clickhouseUrl`, one node) beside a PostgreSQL store, which reports read the
   * dimensions from. Reports then run on ClickHouse.
   */
  facts: z.enum(['duckdb', 'clickhouse']).default('duckdb'),
  /** The remote_servers name the Distributed tables of `--facts clickhouse` refer to. */
  clickhouseCluster: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a ClickHouse identifier')
    .default('adreport'),
  /** The PostgreSQL store as the ClickHouse nodes reach it (their PostgreSQL engine tables); default: `storeUrl`. */
  clickhousePostgresUrl: z.string().min(1).optional(),
  /** Webhook deliveries (README: Webhooks). */
  webhooks: z
    .object({
      /** Loopback, private and link-local targets are refused unless this is true (a receiver on the same network, tests). */
      allowPrivate: z.boolean().default(false),
      /** Deliveries in flight at once. */
      concurrency: positiveInt.max(64).default(4),
      /** One attempt (connect, TLS, request, answer) must end within this. */
      attemptTimeoutMs: positiveInt.max(120_000).default(10_000),
      /** The first retry after this, doubling per failed attempt, at most retryMaxMs apart, for 24 hours. */
      retryBaseMs: positiveInt.default(10_000),
      retryMaxMs: positiveInt.default(3_600_000),
      /** How often the outbox is checked for new deliveries. */
      pollMs: positiveInt.max(60_000).default(1_000),
      /** A PEM file of certificate authorities to trust besides Node's (a receiver with a private CA). */
      caFile: z.string().min(1).optional(),
      /** The key sealing signing secrets (32 bytes, hex or base64) from a secret store instead of the file beside the database. */
      secretKey: z.string().min(1).optional(),
    })
    .prefault({}),
  /** JSON of SandboxFaultConfig, e.g. {"GOOGLE_ADS":{"latencyMs":200,"failureRate":0.1}}. */
  sandboxFaults: z.string().optional(),
});

export type ServiceConfig = z.infer<typeof serviceConfigSchema>;
export type ServiceConfigInput = z.input<typeof serviceConfigSchema>;

/** Reads ADREPORT_* variables into the config shape; flags are merged over this by the caller. */
export function configFromEnv(env: NodeJS.ProcessEnv): ServiceConfigInput {
  const pick = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const bool = (name: string) => (pick(name) === undefined ? undefined : /^(1|true|yes)$/i.test(pick(name)!));
  return {
    dbPath: pick('ADREPORT_DB'),
    storeUrl: pick('ADREPORT_STORE_URL'),
    filesDir: pick('ADREPORT_FILES_DIR'),
    host: pick('ADREPORT_HOST'),
    port: pick('ADREPORT_PORT'),
    httpPort: pick('ADREPORT_HTTP_PORT'),
    sqlPort: pick('ADREPORT_SQL_PORT'),
    sqlEndpoint: {
      maxRows: pick('ADREPORT_SQL_MAX_ROWS'),
      maxConnections: pick('ADREPORT_SQL_MAX_CONNECTIONS'),
    },
    tlsCert: pick('ADREPORT_TLS_CERT'),
    tlsKey: pick('ADREPORT_TLS_KEY'),
    trustProxy: bool('ADREPORT_TRUST_PROXY'),
    serverTiming: bool('ADREPORT_SERVER_TIMING'),
    tokenTtlSeconds: pick('ADREPORT_TOKEN_TTL_SECONDS'),
    tokenSigningKey: pick('ADREPORT_TOKEN_SIGNING_KEY'),
    tokenPreviousKeys: pick('ADREPORT_TOKEN_PREVIOUS_KEYS'),
    rateLimit: {
      ratePerSecond: pick('ADREPORT_RATE_LIMIT_PER_SECOND'),
      burst: pick('ADREPORT_RATE_LIMIT_BURST'),
      tokenRatePerSecond: pick('ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND'),
      tokenBurst: pick('ADREPORT_TOKEN_RATE_LIMIT_BURST'),
      redeliveriesPerMinute: pick('ADREPORT_REDELIVERY_RATE_LIMIT_PER_MINUTE'),
      redeliveryBurst: pick('ADREPORT_REDELIVERY_RATE_LIMIT_BURST'),
      dbTimeMsPerSecond: pick('ADREPORT_DB_TIME_MS_PER_SECOND'),
      dbTimeBurstMs: pick('ADREPORT_DB_TIME_BURST_MS'),
    },
    sandboxFaults: pick('ADREPORT_SANDBOX_FAULTS'),
    cacheMb: pick('ADREPORT_CACHE_MB'),
    shutdownTimeoutMs: pick('ADREPORT_SHUTDOWN_TIMEOUT_MS'),
    platformSyncMs: pick('ADREPORT_PLATFORM_SYNC_MS'),
    demoData: bool('ADREPORT_DEMO_DATA'),
    rollups: bool('ADREPORT_ROLLUPS'),
    reportEngine: pick('ADREPORT_REPORT_ENGINE') as ServiceConfigInput['reportEngine'],
    clickhouseUrl: pick('ADREPORT_CLICKHOUSE_URL'),
    clickhouseFallback: pick('ADREPORT_CLICKHOUSE_FALLBACK') as ServiceConfigInput['clickhouseFallback'],
    clickhouseShardUrls: pick('ADREPORT_CLICKHOUSE_SHARD_URLS'),
    facts: pick('ADREPORT_FACTS') as ServiceConfigInput['facts'],
    clickhouseCluster: pick('ADREPORT_CLICKHOUSE_CLUSTER'),
    clickhousePostgresUrl: pick('ADREPORT_CLICKHOUSE_POSTGRES_URL'),
    statistics: {
      backfillDays: pick('ADREPORT_STATISTICS_BACKFILL_DAYS'),
      trailingDays: pick('ADREPORT_STATISTICS_TRAILING_DAYS'),
      syncMs: pick('ADREPORT_STATISTICS_SYNC_MS'),
    },
    jobs: {
      concurrency: pick('ADREPORT_JOB_CONCURRENCY'),
      backoffBaseMs: pick('ADREPORT_JOB_BACKOFF_BASE_MS'),
      maxBackoffMs: pick('ADREPORT_JOB_MAX_BACKOFF_MS'),
    },
    webhooks: {
      allowPrivate: bool('ADREPORT_WEBHOOK_ALLOW_PRIVATE'),
      concurrency: pick('ADREPORT_WEBHOOK_CONCURRENCY'),
      attemptTimeoutMs: pick('ADREPORT_WEBHOOK_ATTEMPT_TIMEOUT_MS'),
      retryBaseMs: pick('ADREPORT_WEBHOOK_RETRY_BASE_MS'),
      retryMaxMs: pick('ADREPORT_WEBHOOK_RETRY_MAX_MS'),
      pollMs: pick('ADREPORT_WEBHOOK_POLL_MS'),
      caFile: pick('ADREPORT_WEBHOOK_CA_FILE'),
      secretKey: pick('ADREPORT_WEBHOOK_SECRET_KEY'),
    },
    exports: {
      maxConcurrent: pick('ADREPORT_EXPORTS_MAX_CONCURRENT'),
      maxPerOrganization: pick('ADREPORT_EXPORTS_MAX_PER_ORGANIZATION'),
      idleTimeoutMs: pick('ADREPORT_EXPORTS_IDLE_TIMEOUT_MS'),
    },
    reportJobs: {
      concurrency: pick('ADREPORT_REPORT_JOBS_CONCURRENCY'),
      maxRunningPerOrganization: pick('ADREPORT_REPORT_JOBS_MAX_RUNNING_PER_ORGANIZATION'),
      maxUnfinishedPerOrganization: pick('ADREPORT_REPORT_JOBS_MAX_UNFINISHED_PER_ORGANIZATION'),
      filesMb: pick('ADREPORT_REPORT_FILES_MB'),
    },
    http: {
      tlsHandshakeTimeoutMs: pick('ADREPORT_TLS_HANDSHAKE_TIMEOUT_MS'),
      headersTimeoutMs: pick('ADREPORT_HEADERS_TIMEOUT_MS'),
      requestTimeoutMs: pick('ADREPORT_REQUEST_TIMEOUT_MS'),
      writeIdleTimeoutMs: pick('ADREPORT_WRITE_IDLE_TIMEOUT_MS'),
      maxConnections: pick('ADREPORT_MAX_CONNECTIONS'),
      maxConnectionsPerIp: pick('ADREPORT_MAX_CONNECTIONS_PER_IP'),
    },
    database: {
      readConnections: pick('ADREPORT_DB_READ_CONNECTIONS'),
      reportConcurrency: pick('ADREPORT_REPORT_CONCURRENCY'),
      reportReserve: pick('ADREPORT_REPORT_RESERVE'),
      maxQueued: pick('ADREPORT_DB_MAX_QUEUED'),
      memoryLimit: pick('ADREPORT_DB_MEMORY_LIMIT'),
      threads: pick('ADREPORT_DB_THREADS'),
      workerNice: pick('ADREPORT_DB_WORKER_NICE'),
    },
  };
}

/** Merges layers left to right, skipping undefined so a missing flag never hides an env value. */
export function mergeConfig(...layers: ServiceConfigInput[]): ServiceConfigInput {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        out[key] = mergeConfig((out[key] ?? {}) as ServiceConfigInput, value as ServiceConfigInput);
      } else {
        out[key] = value;
      }
    }
  }
  return out as ServiceConfigInput;
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/**
 * The path secrets and files beside the store are named after (`<anchor>.token-keys.json`,
 * `<anchor>.tls/`, ...): the DuckDB file itself, or `<filesDir>/adreport` for a PostgreSQL store,
 * which every replica must see alike.
 */
export function filesAnchor(config: Pick<ServiceConfig, 'dbPath' | 'storeUrl' | 'filesDir'>): string {
  // The embedded store keeps its files beside the one file it owns; --files-dir is for replicas.
  if (config.storeUrl === undefined) return config.dbPath;
  return path.join(config.filesDir ?? path.dirname(config.dbPath), 'adreport');
}
