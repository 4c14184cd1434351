import { recordChange } from '../changes/change-log.js';
import { isoDate } from '../shared/dates.js';
import type { Store } from '../store/store.js';
import { applyImportedRates } from './fx-imported-rates.js';
import { parseFxRatesCsv, type ParsedFxRates } from './fx-rates-csv.js';
import { supportedCurrencies } from './fx-rates.js';

export { FxFileError } from './fx-rates-csv.js';

export interface FxImportResult {
  /** Rates of the file stored (each replaces the rate of its day and currency). */
  readonly rates: number;
  readonly currencies: readonly string[];
  /** First and last day of the file's rates. */
  readonly from: string;
  readonly to: string;
  /** Days between imported ones (weekends, holidays) given the last imported rate, within from..to. */
  readonly carriedForward: number;
  /** Currencies the service has no reference rates for: left out. */
  readonly skipped: { readonly currencies: readonly string[]; readonly rates: number };
}

export interface FxImportOptions {
  /** How errors name the input (the file name). */
  readonly source?: string;
  readonly now?: Date;
}

/** The file's rates as importFxRates takes them; FxFileError names the first bad line. Pure apart from the supported list. */
export function parseFxImport(text: string, options: FxImportOptions = {}): ParsedFxRates {
  return parseFxRatesCsv(text, {
    supported: supportedCurrencies(),
    today: isoDate(options.now ?? new Date()),
    source: options.source,
  });
}

/**
 * `adreport fx import`: real daily rates (long `date,currency,unitsPerEur` or the ECB layout) into
 * the store, marked published, in one write transaction. Reports keep running meanwhile on the
 * rates before it (DuckDB's snapshots) and see the new ones from the commit on. A bad file
 * (FxFileError) changes nothing. The rates are kept in fx_imported_rates too, so a reload of the
 * reference file lays them over it again.
 */
export async function importFxRates(
  db: Store,
  input: string | ParsedFxRates,
  options: FxImportOptions = {},
): Promise<FxImportResult> {
  const parsed = typeof input === 'string' ? parseFxImport(input, options) : input;
  const currencies = [...new Set(parsed.currencies)].sort();
  let from = parsed.days[0]!;
  let to = from;
  for (const day of parsed.days) {
    if (day < from) from = day;
    if (day > to) to = day;
  }
  const applied = await db.write('all-organizations', async (tx) => {
    await tx.run(
      'CREATE OR REPLACE TEMP TABLE fx_import_staging (day VARCHAR, currency VARCHAR, units_per_eur VARCHAR)',
    );
    await tx.append('fx_import_staging', [
      { type: 'VARCHAR', values: parsed.days },
      { type: 'VARCHAR', values: parsed.currencies },
      { type: 'VARCHAR', values: parsed.rates },
    ]);
    await tx.run(
      `DELETE FROM fx_imported_rates USING fx_import_staging s
        WHERE fx_imported_rates.day = s.day::DATE AND fx_imported_rates.currency = s.currency`,
    );
    await tx.run(
      `INSERT INTO fx_imported_rates (day, currency, units_per_eur)
       SELECT day::DATE, currency, units_per_eur::DECIMAL(18,8) FROM fx_import_staging ORDER BY 1, 2`,
    );
    await tx.run('DROP TABLE fx_import_staging');
    const applied = await applyImportedRates(tx, currencies, { from, to });
    // One shared row (organization null), not one per organization: the rates are one table every
    // organization's reports read. The range is the days whose rates changed: the file's, and after
    // its last day only those its last rates now fill (the days before a later import of the
    // currency), so a one-day import of yesterday is one day, not seven.
    await recordChange(tx, {
      organizationId: null,
      kind: 'FX_OR_MARKUP_CHANGED',
      firstDay: from,
      lastDay: applied.lastRatedDay ?? to,
    });
    return applied;
  });
  return {
    rates: parsed.days.length,
    currencies,
    from,
    to,
    carriedForward: applied.carriedForward,
    skipped: parsed.skipped,
  };
}
