/**
 * The files that take longest, started first (longest processing time first) by
 * helpers/sequencer.ts. A clean clone has no Vitest cache, so Vitest's own order is project by
 * project, larger files first: a file of a few lines that runs for minutes (the parity files,
 * whose corpus is a helper) or a long file of a late project (the SQL endpoint's fuzz, in
 * `service`) started last and ran alone while the other workers sat idle. Seconds from each one's
 * start to its end in a `npm test` run on 2 cores (2 workers, a busy machine): only the order
 * counts. A file not listed runs after these in Vitest's order; a listed file that no longer
 * exists fails test/unit/long-files.test.ts.
 */
export const LONG_FILES: Readonly<Record<string, number>> = {
  'service/sql-endpoint-isolation.test.ts': 229,
  'engines/clickhouse-facts-cluster.test.ts': 178,
  'engines/clickhouse-parity.test.ts': 166,
  'service/golden-injection.test.ts': 94,
  'cli/durability-crash.test.ts': 90,
  'engines/clickhouse-dialect.test.ts': 87,
  'cli/cli-admin-both-ways.test.ts': 77,
  'engines/clickhouse-parity-facts.test.ts': 75,
  'cli/reporting-exports.test.ts': 69,
  'engines/postgres-replicas.test.ts': 69,
  'cli/generator.test.ts': 66,
  'service/contract.test.ts': 44,
  'service/reporting-platform-statistics.test.ts': 39,
  'cli/cli-admin-channel.test.ts': 34,
  'cli/cli.test.ts': 32,
  'engines/reporting-segment-totals.test.ts': 31,
};
