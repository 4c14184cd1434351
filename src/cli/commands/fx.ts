import fs from 'node:fs';
import { FxFileError, importFxRates, parseFxImport } from '../../reference/fx-import.js';
import { MAX_CARRIED_DAYS } from '../../reference/fx-imported-rates.js';
import type { ParsedFxRates } from '../../reference/fx-rates-csv.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, printResult, type Command } from '../command.js';

/**
 * `adreport fx import FILE`: real daily reference rates into the store (src/reference/fx-import.ts
 * does the work, so the server's admin channel can run the same thing while it serves).
 */
export const fxImport: Command = {
  path: ['fx', 'import'],
  summary: 'Load daily FX rates (units per 1 EUR) from a CSV file; they replace the stored rates of their days and count as published',
  usage: 'adreport fx import FILE [--db FILE] [--json]',
  arguments: ['FILE'],
  optionHelp: [
    'FILE               CSV with the header date,currency,unitsPerEur (one rate per line, e.g. 2026-11-20,USD,1.0523),',
    '                   or the ECB layout: eurofxref-hist.csv / eurofxref.csv (Date,USD,JPY,...; N/A where no rate)',
    `                   Days between two imported days of a currency (up to ${MAX_CARRIED_DAYS}) carry the earlier rate.`,
    '                   Currencies without reference rates are skipped and counted; a bad line refuses the whole file.',
  ],
  options: {},
  async run(context) {
    const file = context.arguments[0];
    if (file === undefined || file === '') throw new CliError('FILE is required: adreport fx import FILE', 2);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    // A bad file is refused before the database is opened at all.
    const rates = parseOrRefuse(text, file);
    const imported = await withAdminStore(context.dbPath, (db) => importFxRates(db, rates, { source: file }));
    printResult(context, { imported });
    return 0;
  },
};

function parseOrRefuse(text: string, file: string): ParsedFxRates {
  try {
    return parseFxImport(text, { source: file });
  } catch (error) {
    if (error instanceof FxFileError) throw new CliError(error.message);
    throw error;
  }
}
