import { REPORT_ENGINE_NAMES, REPORT_ENGINES } from '../../reporting/report-engines.js';
import type { Command } from '../command.js';

export const serve: Command = {
  path: ['serve'],
  summary: 'Run the HTTPS service',
  usage: `adreport serve [--port 8443] [--tls-cert F --tls-key F] [--http-port N] [--sql-port N] [--trust-proxy] [--demo] [--host H] [--report-engine ${REPORT_ENGINE_NAMES.join('|')}] [--db FILE] [--json]`,
  optionHelp: [
    '--port N           HTTPS port (default 8443; 0 picks a free one)',
    '--tls-cert F       PEM certificate; with --tls-key. Default: a self-signed pair in <db>.tls/',
    '--tls-key F        PEM private key',
    '--http-port N      also listen for plain HTTP and answer every request 404 (HTTPS only)',
    '--sql-port N       also serve SQL over the PostgreSQL protocol (TLS, SCRAM-SHA-256: user = client id, password = secret)',
    '--trust-proxy      behind a TLS-terminating proxy: listen for plain HTTP, serve only X-Forwarded-Proto: https',
    '--demo             on an empty database, create a demo organization, client and accounts (400 days of sandbox history,\n                     fetched in the background; ADREPORT_DEMO_DATA=false leaves the accounts out) and print the credentials',
    '--host H           interface to bind (default 0.0.0.0)',
    `--report-engine E  where reports run (env ADREPORT_REPORT_ENGINE):${REPORT_ENGINES.map(({ name, summary }) => `\n                     ${name.padEnd(11)} ${summary}`).join('')}`,
    '--facts F          duckdb (default) or clickhouse: with --store, facts are written to ClickHouse and reports run there;\n                     ADREPORT_CLICKHOUSE_SHARD_URLS (a cluster: commas between shards, | between replicas) or ADREPORT_CLICKHOUSE_URL',
    'Environment: ADREPORT_DB, ADREPORT_PORT, ADREPORT_RATE_LIMIT_PER_SECOND, ADREPORT_RATE_LIMIT_BURST, ...',
  ],
  options: {
    port: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'http-port': { type: 'string' },
    'sql-port': { type: 'string' },
    'trust-proxy': { type: 'boolean' },
    demo: { type: 'boolean' },
    host: { type: 'string' },
    'report-engine': { type: 'string' },
    facts: { type: 'string' },
  },
  // The service's whole graph loads only when serve runs, so --help and the other commands start fast.
  run: async (context) => (await import('./serve-run.js')).runServe(context),
};
