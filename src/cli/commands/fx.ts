import { noFactsHere } from '../no-facts-here.js';
import fs from 'node:fs';
import { z } from 'zod';
import { FxFileError, importFxRates, parseFxImport } from '../../reference/fx-import.js';
import { MAX_CARRIED_DAYS } from '../../reference/fx-imported-rates.js';
import { adminCommand } from '../admin/admin-command.js';
import { CliError } from '../command.js';

/**
 * `adreport fx import FILE`: real daily reference rates into the store (src/reference/fx-import.ts
 * does the work). The file is read and checked here, in the CLI: its path is the CLI's, and a bad
 * file is refused before the database is touched. The text goes to wherever the database is: this
 * process, or the server holding it, which imports it while it keeps serving reports.
 */
export const fxImport = adminCommand({
  path: ['fx', 'import'],
  summary:
    'Load daily FX rates (units per 1 EUR) from a CSV file; they replace the stored rates of their days and count as published',
  usage: 'adreport fx import FILE [--db FILE] [--json]',
  arguments: ['FILE'],
  optionHelp: [
    'FILE               CSV with the header date,currency,unitsPerEur (one rate per line, e.g. 2026-11-20,USD,1.0523),',
    '                   or the ECB layout: eurofxref-hist.csv / eurofxref.csv (Date,USD,JPY,...; N/A where no rate)',
    `                   Days between two imported days of a currency (up to ${MAX_CARRIED_DAYS}) carry the earlier rate.`,
    '                   Currencies without reference rates are skipped and counted; a bad line refuses the whole file.',
  ],
  options: {},
  parse(context) {
    const file = context.arguments[0];
    if (file === undefined || file === '') throw new CliError('FILE is required: adreport fx import FILE', 2);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    refuseBadFile(text, file);
    return { text, source: file };
  },
  operation: {
    name: 'fx import',
    input: z.object({ text: z.string(), source: z.string() }),
    async run({ db }, { text, source }) {
      if (!db.dialect.servesReports) throw noFactsHere('fx import');
      // Parsed again where it runs: the server checks what reaches it, whoever sent it.
      return { imported: await importFxRates(db, refuseBadFile(text, source), { source }) };
    },
  },
});

function refuseBadFile(text: string, source: string) {
  try {
    return parseFxImport(text, { source });
  } catch (error) {
    if (error instanceof FxFileError) throw new CliError(error.message);
    throw error;
  }
}
