import fs from 'node:fs';
import { KEY_FILE_FIX, keyFilePathFor, readKeyFile } from '../../auth/key-file.js';
import { filesAnchor } from '../../config/config.js';
import { createSecretFile, readSecretFile } from '../../store/secret-files.js';
import type { Database } from '../../store/database.js';
import { webhookKeyPathFor } from '../../webhooks/secret-box.js';
import { CliError, printResult, requireOption, type Command, type CommandContext } from '../command.js';

/**
 * `adreport migrate-store`: an embedded deployment (one DuckDB file) onto the PostgreSQL store the
 * replicas share (issue 37 item 5). The rows go over in src/store/postgres/copy-from-duckdb.ts;
 * this command opens both stores, refuses what must not be merged, and takes the key files along:
 * tokens issued before, and the sealed webhook secrets, stay good only with the keys they were
 * made with.
 */
export const migrateStore: Command = {
  path: ['migrate-store'],
  summary: 'Copy a DuckDB file (no facts) and its key files into an empty PostgreSQL store for replicas',
  usage: 'adreport migrate-store --from FILE --to postgres://user:password@host:port/database --files-dir DIR [--json]',
  optionHelp: [
    '--from FILE        the DuckDB file of the embedded deployment (stop its server first)',
    '--to URL           postgres://user:password@host:port/database: an empty PostgreSQL store (migrated here if new)',
    '                   --files-dir DIR (or ADREPORT_FILES_DIR) is required: the key files go there (made 0700 if missing);',
    '                   --db and --store are not used: --from and --to name the two stores',
  ],
  options: { from: { type: 'string' }, to: { type: 'string' } },
  notes: [
    'Copied, in one PostgreSQL transaction (all or nothing): every table of the service but the ones below, with ids as they',
    'are; every id sequence then continues after the largest id. Progress on stderr, one line per table; the result lists',
    'rows per table. The DuckDB file is brought to this release first and left otherwise as it was.',
    'Not copied: the facts (fact_*, call_details) and what derives from them (rollup_*; statistics_sources, how far they',
    'are synced: synced anew once the facts are on PostgreSQL, issue 38), FX rates and reference data (not used on',
    'PostgreSQL yet), replicas and work_leases (per process), schema_migrations; nor report files or the self-signed TLS pair.',
    'Key files: <from>.token-keys.json and <from>.webhook-key go to DIR/adreport.token-keys.json and DIR/adreport.webhook-key',
    "(0600, O_EXCL), so tokens issued before and the webhooks' secrets stay good; one that is already there must be the same.",
    'Refused, with nothing changed: a file a server holds, a --from that does not exist, a PostgreSQL store that holds',
    'organizations (never merging two deployments). A copy that fails midway leaves PostgreSQL as it was (run it again).',
  ],
  async run(context) {
    const started = performance.now();
    const { from, to, filesDir } = parseArguments(context);
    // Before anything touches the disk: opening a file that is not there would create it.
    if (!fs.existsSync(from)) throw new CliError(`${from} does not exist; check --from`);
    // DuckDB and PostgreSQL load only now, not for --help or a usage error.
    const [duckdb, { migrate }, copy, { openPostgresAdminStore }, { redactedUrl }] = await Promise.all([
      import('../../store/database.js'),
      import('../../store/migrate.js'),
      import('../../store/postgres/copy-from-duckdb.js'),
      import('../admin-store.js'),
      import('../../store/postgres/postgres-store.js'),
    ]);
    let source: Database;
    try {
      source = await duckdb.Database.open(from, { readConnections: 1, maxQueued: 16 });
    } catch (error) {
      if (!(error instanceof duckdb.DatabaseLockedError)) throw error;
      const holder = error.holderPid === undefined ? 'another process' : `a running process (pid ${error.holderPid})`;
      throw new CliError(`${from} is held by ${holder}, usually the adreport server; stop it before migrate-store`);
    }
    try {
      await migrate(source);
      const target = await openPostgresAdminStore(to);
      try {
        const plan = await copy.planCopy(source, target);
        await target.read((r) => copy.assertTargetEmpty(r, target.dbPath, plan));
        const anchor = filesAnchor({ dbPath: from, storeUrl: to, filesDir });
        const keyFiles = [
          { from: keyFilePathFor(from), to: keyFilePathFor(anchor), fix: KEY_FILE_FIX, isTokenKeys: true },
          { from: webhookKeyPathFor(from), to: webhookKeyPathFor(anchor), fix: WEBHOOK_KEY_FIX, isTokenKeys: false },
        ].map((file) => ({ ...file, ...checkKeyFile(file) }));
        // Before the rows: a key file refused leaves PostgreSQL untouched; one copied stays right for a second run.
        for (const file of keyFiles) {
          if (file.status !== 'copied') continue;
          fs.mkdirSync(filesDir, { recursive: true, mode: 0o700 });
          // Another process made it meanwhile: it must be the same file.
          if (!createSecretFile(file.to, file.text!)) file.status = checkKeyFile(file).status;
          else context.io.stderr.write(`copied ${file.from} to ${file.to}\n`);
        }
        const result = await copy.copyFromDuckDb(source, target, plan, {
          onTable: (table, rows) => context.io.stderr.write(`copied ${table}: ${rows} rows\n`),
        });
        const leftBehind = plan.tables.filter((t) => t.columnsLeftBehind.length > 0);
        printResult(context, {
          from,
          to: redactedUrl(to),
          filesDir,
          tables: Object.fromEntries(result.tables.map((t) => [t.table, t.rows])),
          rows: result.rows,
          sequences: result.sequences,
          keyFiles: keyFiles.map((f) => ({ from: f.from, to: f.to, status: f.status })),
          notCopied: plan.notCopied,
          ...(leftBehind.length > 0
            ? { columnsLeftBehind: Object.fromEntries(leftBehind.map((t) => [t.table, t.columnsLeftBehind])) }
            : {}),
          seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
        });
        return 0;
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  },
};

const WEBHOOK_KEY_FIX =
  "make it readable by this user alone (chmod 600 {file}) if it is the service's own, else find out who made it";

function parseArguments(context: CommandContext): { from: string; to: string; filesDir: string } {
  const from = requireOption(context.values, 'from');
  const to = requireOption(context.values, 'to');
  let scheme: string | undefined;
  try {
    scheme = new URL(to).protocol;
  } catch {
    scheme = undefined;
  }
  if (scheme !== 'postgres:' && scheme !== 'postgresql:')
    throw new CliError('--to must be a URL postgres://user:password@host:port/database', 2);
  if (context.filesDir === undefined)
    throw new CliError(
      '--files-dir is required: the directory the PostgreSQL replicas share (the key files go there)',
      2,
    );
  return { from, to, filesDir: context.filesDir };
}

/**
 * What to do about one key file: `copied` (the source's text, to be written), `already there` (the
 * target holds the same), `no source` (nothing beside the file: keys from the environment, or a
 * server never started on it). A target that differs is refused: replicas may already sign with it.
 */
function checkKeyFile(file: { from: string; to: string; fix: string; isTokenKeys: boolean }): {
  status: 'copied' | 'already there' | 'no source';
  text?: string;
} {
  const text = readSecretFile(file.from, { fix: file.fix });
  if (text === undefined) return { status: 'no source' };
  // A token key file that does not parse would stop every replica's start; say so now.
  if (file.isTokenKeys) readKeyFile(file.from);
  const there = readSecretFile(file.to, { fix: file.fix });
  if (there === undefined) return { status: 'copied', text };
  if (there === text) return { status: 'already there' };
  throw new CliError(
    `${file.to} exists and differs from ${file.from}; if no replica uses it, move it away and run migrate-store again`,
  );
}
