import type { Migration } from './migration.js';

/**
 * The conversion lag a platform declared when its figures were fetched (issue 23, freshness): a
 * synced day is final once the fetch happened that many days after the day ended. Recorded per
 * sync beside synced_at, so a connector with another lag changes nothing already stored. Rows
 * synced before this column came from the sandbox, the only connector so far (14 days);
 * GENERATED rows have none (generated figures are final as generated).
 */
export const m012ConversionLag: Migration = {
  version: 12,
  name: 'the conversion lag of the last statistics sync',
  statements: [
    `ALTER TABLE statistics_sources ADD COLUMN conversion_lag_days INTEGER`,
    `UPDATE statistics_sources SET conversion_lag_days = 14 WHERE source = 'PLATFORM'`,
  ],
};
