import type { Migration } from './migration.js';

/**
 * Which reference rates are published and which are estimated (issue 19): the reference file's
 * rates after a currency's `published_through` (data/fx/series.csv) are a generated continuation,
 * and reports that convert with them say so. Imported daily rates (`adreport fx import`) are kept
 * in a table of their own, so that reloading the reference file lays them over it again instead of
 * wiping them. No key on either table, as on fx_rates: imports replace by (day, currency) with a
 * DELETE ... USING a staging table, and a key would cost more than that on ~10^5 rows.
 */
export const m009FxPublished: Migration = {
  version: 9,
  name: 'published flag of FX rates, imported FX rates',
  statements: [
    // fx_rates holds only what the reference file and the imports make, so it is made anew rather
    // than altered (ALTER TABLE in a transaction fails on DuckDB 1.5.6 once the configuration is
    // locked, as the store locks it); the DELETE below has the next start load it again.
    `DROP TABLE fx_rates`,
    `CREATE TABLE fx_rates (
       day DATE NOT NULL,
       currency VARCHAR NOT NULL,
       units_per_eur DECIMAL(18,8) NOT NULL,
       published BOOLEAN NOT NULL
     )`,
    `CREATE TABLE fx_imported_rates (
       day DATE NOT NULL,
       currency VARCHAR NOT NULL,
       units_per_eur DECIMAL(18,8) NOT NULL,
       imported_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
    // The loaded reference has no published flags yet: the next start loads it again.
    `DELETE FROM reference_data WHERE name = 'fx-rates'`,
  ],
};
