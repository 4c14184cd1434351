import type { ParseArgsConfig } from 'node:util';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Node's own threads, listed by the bin before anything else started one (src/cli.cts). */
  nodeThreads?: ReadonlySet<number> | undefined;
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | undefined>;

export interface CommandContext {
  readonly values: OptionValues;
  readonly dbPath: string;
  /** --store / ADREPORT_STORE_URL: a PostgreSQL store instead of the DuckDB file (issue 37). */
  readonly storeUrl?: string | undefined;
  /** --files-dir / ADREPORT_FILES_DIR: the directory the replicas of a PostgreSQL store share. */
  readonly filesDir?: string | undefined;
  readonly json: boolean;
  readonly io: CliIo;
  /** Words after the command's path (`adreport fx import FILE`: [FILE]), at most as many as it names. */
  readonly arguments: readonly string[];
}

export interface Command {
  /** Words after `adreport`, e.g. ['clients', 'create']. */
  readonly path: readonly string[];
  readonly summary: string;
  readonly usage: string;
  /** Lines under "Options:" in --help, besides the common --db, --json and --help. */
  readonly optionHelp: readonly string[];
  readonly options: OptionSpec;
  /** Paragraph lines after the options in --help. */
  readonly notes?: readonly string[];
  /** Names of the positional arguments after the path, for the usage check; none by default. */
  readonly arguments?: readonly string[];
  run(context: CommandContext): Promise<number>;
}

/** An expected failure: printed as one line, exit code 1 (2 for usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The one line and exit code a failure ends with, the same whether it happened in the CLI or in the server. */
export function failureOf(error: unknown): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  const message = error instanceof Error ? error.message : String(error);
  return { message: message.split('\n')[0] ?? 'failed', exitCode: 1 };
}

/** --json prints one compact line for machines; otherwise the same JSON, indented for people. */
export function printResult(context: CommandContext, value: unknown): void {
  context.io.stdout.write(`${context.json ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}

export function requireOption(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`--${name} is required`, 2);
  return value;
}

export function parseId(text: string, flag: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw new CliError(`--${flag} must be a positive integer id, not "${text}"`, 2);
  return Number(text);
}
