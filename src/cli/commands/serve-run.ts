import { configFromEnv, mergeConfig, serviceConfigSchema, type ServiceConfigInput } from '../../config/config.js';
import type { StatisticsSyncSettings } from '../../jobs/statistics-sync-queue.js';
import { PortInUseError, startService, type RunningService } from '../../main.js';
import { VERSION } from '../../version.js';
import { ClickHouseFailure } from '../../clickhouse/clickhouse-connection.js';
import { FactTopologyError } from '../../clickhouse/facts/fact-topology.js';
import { ClickHouseSchemaMismatch } from '../../clickhouse/replicator.js';
import { StoreConfigurationError } from '../../store/postgres/postgres-store.js';
import { SqlEndpointConfigurationError } from '../../sql-endpoint/sql-endpoint.js';
import { ADMIN_COMMANDS } from '../admin-commands.js';
import { listenAdminChannel, type AdminChannel } from '../admin/channel-server.js';
import type { AdminServices } from '../admin/operation.js';
import { adminSocketName } from '../admin/socket-path.js';
import { CliError, type CommandContext } from '../command.js';

/**
 * `adreport serve`: the service on the file, the admin channel beside it, until SIGTERM or SIGINT.
 * Loaded only when serve runs (src/cli/commands/serve.ts): the whole service graph.
 */
export async function runServe(context: CommandContext): Promise<number> {
  const { values, io } = context;
  const flags: ServiceConfigInput = {
    dbPath: context.dbPath,
    storeUrl: context.storeUrl,
    filesDir: context.filesDir,
    port: values.port,
    httpPort: values['http-port'],
    sqlPort: values['sql-port'],
    tlsCert: values['tls-cert'] as string | undefined,
    tlsKey: values['tls-key'] as string | undefined,
    trustProxy: values['trust-proxy'] as boolean | undefined,
    demo: values.demo as boolean | undefined,
    // The demo organization comes with demo accounts and their history unless ADREPORT_DEMO_DATA=false.
    demoData: values.demo === true && configFromEnv(io.env).demoData !== false ? true : undefined,
    host: values.host as string | undefined,
    reportEngine: values['report-engine'] as ServiceConfigInput['reportEngine'],
    facts: values.facts as ServiceConfigInput['facts'],
  };
  const parsed = serviceConfigSchema.safeParse(mergeConfig(configFromEnv(io.env), flags));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(`invalid setting ${issue.path.join('.')}: ${issue.message}`, 2);
  }
  const logError: Parameters<typeof startService>[1]['logError'] = (entry) => {
    const error =
      entry.error instanceof Error
        ? { name: entry.error.name, message: entry.error.message, stack: entry.error.stack }
        : entry.error;
    io.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), ...entry, error })}\n`);
  };
  const log = (line: string) =>
    io.stderr.write(
      context.json
        ? `${JSON.stringify({ level: 'info', time: new Date().toISOString(), message: line })}\n`
        : `adreport: ${line}\n`,
    );
  const service = await startService(parsed.data, { nodeThreads: io.nodeThreads, logError, log }).catch(
    explainStartFailure,
  );
  // On PostgreSQL every admin command opens the shared store itself; no server holds it alone.
  let channel: AdminChannel | undefined;
  if (context.storeUrl === undefined)
    try {
      channel = await listenAdminChannel({
        dbPath: context.dbPath,
        env: io.env,
        db: service.db,
        services: adminServices(service, parsed.data.statistics),
        operations: ADMIN_COMMANDS.map((command) => command.operation),
        version: VERSION,
        logError: (error) => logError({ requestId: '-', method: '-', path: 'admin channel', error }),
      });
    } catch (error) {
      await service.close();
      throw new CliError(
        `cannot create the admin socket ${adminSocketName(context.dbPath)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  // Handlers go in before the announcement: a supervisor may send SIGTERM the moment it reads it.
  const stopRequested = untilSignal(context);
  announce(context, service);
  await stopRequested;
  // The socket goes first, while this process still holds the file; commands running finish or fail with the store.
  channel?.stopAccepting();
  await service.close();
  await channel?.close(1_000);
  if (!context.json) io.stderr.write('adreport: stopped cleanly\n');
  return 0;
}

/**
 * The server's own services for admin commands sent over the channel: jobs run on its runner, a
 * disabled client is refused at once, exports take the service's export slots.
 */
function adminServices(service: RunningService, statistics: StatisticsSyncSettings): AdminServices {
  return {
    now: () => new Date(),
    platforms: service.platforms,
    reports: service.reports,
    statistics,
    jobs: async () => service.jobs,
    clientsDisabled: () => service.disabledClients.refresh(),
  };
}

/** A ClickHouse replica of another schema stops the start with what to do about it. */
function explainStartFailure(error: unknown): never {
  if (
    error instanceof ClickHouseSchemaMismatch ||
    error instanceof StoreConfigurationError ||
    error instanceof SqlEndpointConfigurationError ||
    error instanceof FactTopologyError ||
    error instanceof ClickHouseFailure
  )
    throw new CliError(error.message);
  return explainPortInUse(error);
}

/** EADDRINUSE alone names neither the flag nor the variable that picks another port. */
function explainPortInUse(error: unknown): never {
  if (!(error instanceof PortInUseError)) throw error;
  const how = {
    port: '--port N or ADREPORT_PORT',
    httpPort: '--http-port N or ADREPORT_HTTP_PORT',
    sqlPort: '--sql-port N or ADREPORT_SQL_PORT',
  }[error.setting];
  throw new CliError(`${error.message}; choose another with ${how}`);
}

function announce(context: CommandContext, service: RunningService): void {
  const { io } = context;
  const demo = service.demo?.created ? service.demo : undefined;
  if (context.json) {
    const line = {
      event: 'listening',
      url: service.url,
      port: service.port,
      httpPort: service.httpPort ?? null,
      sqlPort: service.sqlPort ?? null,
      db: context.storeUrl === undefined ? context.dbPath : service.db.dbPath,
      adminSocket: context.storeUrl === undefined ? adminSocketName(context.dbPath) : null,
      demo: demo
        ? {
            organizationId: demo.organization.id,
            clientId: demo.client.clientId,
            clientSecret: demo.client.clientSecret,
          }
        : null,
    };
    io.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  const lines = [
    `adreport listening on ${service.url} (database ${context.storeUrl === undefined ? context.dbPath : service.db.dbPath})`,
    context.storeUrl === undefined
      ? `admin commands on this file run in this server, through ${adminSocketName(context.dbPath)} (owner only)`
      : 'admin commands run against the same store: adreport <command> --store URL --files-dir DIR',
    `report explorer: ${service.url}/explorer (in a browser; sign in with a client id and secret)`,
  ];
  if (service.tls && service.tls.source !== 'given') {
    lines.push(
      `TLS: self-signed certificate ${service.tls.certPath} (curl needs -k or --cacert ${service.tls.certPath})`,
    );
  }
  if (service.httpPort !== undefined) lines.push(`plain HTTP on port ${service.httpPort} answers 404 to everything`);
  if (service.sqlPort !== undefined) {
    lines.push(
      `SQL endpoint (PostgreSQL protocol, TLS): psql "host=localhost port=${service.sqlPort} sslmode=require user=<client id> dbname=adreport" (password: the client secret)`,
    );
  }
  if (demo) {
    const basic = `${demo.client.clientId}:${demo.client.clientSecret}`;
    lines.push(
      '',
      `Demo organization ${demo.organization.id} and client created. Store the secret now; it is shown only once.`,
      `  client id:     ${demo.client.clientId}`,
      `  client secret: ${demo.client.clientSecret}`,
      `Sandbox master accounts linked: ${demo.masterAccounts.map((m) => `${m.adPlatformType} ${m.adPlatformId} (id ${m.id})`).join(', ')}`,
      '',
      'Try it:',
      `  TOKEN=$(curl -sk -u '${basic}' -d grant_type=client_credentials ${service.url}/token | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
      `  curl -sk -H "Authorization: Bearer $TOKEN" ${service.url}/provisioning/v0/organization`,
    );
  } else if (service.demo) {
    lines.push(
      '',
      'The database already has organizations, so no demo client was made. New credentials (the server keeps running):',
      '  npx adreport clients create --org 1',
    );
  }
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** SIGTERM or SIGINT starts a graceful stop; a second one forces the exit. */
function untilSignal(context: CommandContext): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (!context.json) context.io.stderr.write(`adreport: ${signal}, finishing in-flight requests\n`);
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
