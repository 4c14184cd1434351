import { CliError } from './command.js';

/** An admin command that reads or writes statistics, run against a store that holds none (PostgreSQL, until issue 38). */
export function noFactsHere(command: string): CliError {
  return new CliError(
    `${command} works on statistics, which the PostgreSQL store does not hold yet; run it with --db on the embedded DuckDB store`,
  );
}
