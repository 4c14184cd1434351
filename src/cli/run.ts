import { parseArgs } from 'node:util';
import { DEFAULT_DB_PATH } from '../config/config.js';
import { CliError, failureOf, type CliIo, type Command } from './command.js';
import { ADMIN_COMMANDS } from './admin-commands.js';
import { clickhouseClusterDown, clickhouseClusterUp } from './commands/clickhouse-cluster.js';
import { clickhouseSchema } from './commands/clickhouse-schema.js';
import { dataGenerate } from './commands/data-generate.js';
import { keysRotate } from './commands/keys.js';
import { migrateStore } from './commands/migrate-store.js';
import { serve } from './commands/serve.js';

export const COMMANDS: readonly Command[] = [
  serve,
  ...ADMIN_COMMANDS,
  dataGenerate,
  keysRotate,
  migrateStore,
  clickhouseSchema,
  clickhouseClusterUp,
  clickhouseClusterDown,
];

const COMMON_HELP = [
  `--db FILE          the database file (default ${DEFAULT_DB_PATH}; env ADREPORT_DB)`,
  '--store URL        postgres://user:password@host:port/database: the PostgreSQL store replicas share, instead of --db (env ADREPORT_STORE_URL)',
  '--files-dir DIR    with --store: the directory every replica shares (key files, TLS pair, report files; env ADREPORT_FILES_DIR)',
  '--json             machine output: one JSON line',
  '-h, --help         this help',
];

/** Parses argv, runs one command, returns the exit code. Failures print exactly one line. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // The command is the leading words; everything from the first flag on belongs to parseArgs.
  const firstFlag = argv.findIndex((a) => a.startsWith('-'));
  const words = firstFlag < 0 ? [...argv] : argv.slice(0, firstFlag);
  const command = COMMANDS.find((c) => c.path.every((word, i) => words[i] === word));
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!command) {
    if (argv.length === 0 || (wantsHelp && words.length === 0)) {
      io.stdout.write(overview());
      return 0;
    }
    const group = COMMANDS.filter((c) => c.path[0] === words[0]);
    if (group.length > 0 && (wantsHelp || words.length === 1)) {
      io.stdout.write(`${group.map((c) => `  ${c.usage}\n      ${c.summary}`).join('\n')}\n`);
      return wantsHelp ? 0 : 2;
    }
    io.stderr.write(`adreport: unknown command "${words.join(' ')}"; run adreport --help\n`);
    return 2;
  }
  if (wantsHelp) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: {
        ...command.options,
        db: { type: 'string' },
        store: { type: 'string' },
        'files-dir': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > command.path.length + (command.arguments?.length ?? 0))
      throw new CliError(
        `unexpected argument "${positionals[command.path.length]}"; see adreport ${command.path.join(' ')} --help`,
        2,
      );
    const dbPath =
      typeof values.db === 'string' && values.db !== '' ? values.db : io.env.ADREPORT_DB || DEFAULT_DB_PATH;
    const text = (flag: unknown, name: string) =>
      typeof flag === 'string' && flag !== '' ? flag : io.env[name] || undefined;
    return await command.run({
      values: values as Record<string, string | boolean | undefined>,
      dbPath,
      storeUrl: text(values.store, 'ADREPORT_STORE_URL'),
      filesDir: text(values['files-dir'], 'ADREPORT_FILES_DIR'),
      json: values.json === true,
      io,
      arguments: positionals.slice(command.path.length),
    });
  } catch (error) {
    if (isUsageError(error)) {
      io.stderr.write(
        `adreport: ${(error as Error).message.split('\n')[0]}; see adreport ${command.path.join(' ')} --help\n`,
      );
      return 2;
    }
    const failure = failureOf(error);
    io.stderr.write(`adreport: ${failure.message}\n`);
    return failure.exitCode;
  }
}

function isUsageError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

function overview(): string {
  const rows = COMMANDS.map((c) => `  ${c.path.join(' ').padEnd(18)} ${c.summary}`);
  return [
    'Usage: adreport <command> [options]',
    '',
    'Commands:',
    ...rows,
    '',
    'Every command takes --db FILE (or --store URL and --files-dir DIR), --json and --help.',
    '',
  ].join('\n');
}

function commandHelp(command: Command): string {
  const notes = command.notes && command.notes.length > 0 ? ['', ...command.notes] : [];
  return [
    `Usage: ${command.usage}`,
    '',
    command.summary,
    '',
    'Options:',
    ...[...command.optionHelp, ...COMMON_HELP].map((l) => `  ${l}`),
    ...notes,
    '',
  ].join('\n');
}
