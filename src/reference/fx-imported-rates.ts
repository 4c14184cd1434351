import type { Executor } from '../store/database.js';

/**
 * How many days after its own day an imported rate is carried, when the next imported rate of its
 * currency is later: the ECB publishes on TARGET business days, and its longest break (Easter,
 * Thursday to Tuesday) leaves 4 days without a rate. A longer gap (two separate imports, say January
 * and June) keeps the reference rates on its days, estimated as they were: carrying one January
 * rate through May would call four months of a flat, made-up rate published.
 */
export const MAX_CARRIED_DAYS = 6;

export interface AppliedImports {
  /** Days filled with the last imported rate before them (weekends, holidays), within the window asked about. */
  readonly carriedForward: number;
  /**
   * The last day whose rate now comes from a day of the window asked about: the window's last day,
   * or a day after it that the window's last rate fills up to the next imported rate (at most
   * MAX_CARRIED_DAYS later). Null without a window.
   */
  readonly lastRatedDay: string | null;
}

/**
 * Lays the imported rates (fx_imported_rates) over fx_rates, inside the caller's write
 * transaction: every imported (day, currency) gets its rate, and so do the days after it until the
 * next imported day of that currency (at most MAX_CARRIED_DAYS), all marked published. Days the
 * reference file does not cover are added. `currencies` narrows the work to those an import
 * touched; the reference loader passes none and re-applies everything.
 */
export async function applyImportedRates(
  tx: Executor,
  currencies?: readonly string[],
  window?: { from: string; to: string },
): Promise<AppliedImports> {
  const narrowed = currencies !== undefined;
  // Each calendar day of a currency's imported span, with the last imported rate on or before it
  // (a window over the days; an ASOF JOIN took 4-5 s for 49k days where this takes 20 ms).
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE fx_import_overlay AS
     WITH imported AS (SELECT day, currency, units_per_eur FROM fx_imported_rates${narrowed ? ' WHERE currency IN (SELECT unnest($1::VARCHAR[]))' : ''}),
          spans AS (SELECT currency, min(day) AS first_day, max(day) AS last_day FROM imported GROUP BY currency),
          days AS (SELECT currency, unnest(generate_series(first_day, last_day, INTERVAL 1 DAY))::DATE AS day FROM spans),
          filled AS (SELECT d.day, d.currency, last_value(i.units_per_eur IGNORE NULLS) OVER w AS units_per_eur, last_value(i.day IGNORE NULLS) OVER w AS rate_day
                       FROM days d LEFT JOIN imported i ON i.currency = d.currency AND i.day = d.day
                     WINDOW w AS (PARTITION BY d.currency ORDER BY d.day ROWS UNBOUNDED PRECEDING))
     SELECT day, currency, units_per_eur, rate_day FROM filled WHERE day - rate_day <= ${MAX_CARRIED_DAYS}`,
    narrowed ? [[...currencies]] : [],
  );
  // In place where the day exists (fx_rates keeps its (day, currency) order for the zone maps), appended where it does not.
  await tx.run(
    `UPDATE fx_rates SET units_per_eur = o.units_per_eur, published = true
       FROM fx_import_overlay o WHERE fx_rates.day = o.day AND fx_rates.currency = o.currency`,
  );
  await tx.run(
    `INSERT INTO fx_rates (day, currency, units_per_eur, published)
     SELECT o.day, o.currency, o.units_per_eur, true FROM fx_import_overlay o
      WHERE NOT EXISTS (SELECT 1 FROM fx_rates f WHERE f.day = o.day AND f.currency = o.currency)
      ORDER BY o.day, o.currency`,
  );
  const carried = await tx.one<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM fx_import_overlay WHERE day <> rate_day${window ? ' AND day BETWEEN $1::DATE AND $2::DATE' : ''}`,
    window ? [window.from, window.to] : [],
  );
  const lastRated = window
    ? await tx.one<{ day: string | null }>(
        `SELECT strftime(max(day), '%Y-%m-%d') AS day FROM fx_import_overlay WHERE rate_day BETWEEN $1::DATE AND $2::DATE`,
        [window.from, window.to],
      )
    : undefined;
  await tx.run('DROP TABLE fx_import_overlay');
  return { carriedForward: carried?.n ?? 0, lastRatedDay: lastRated?.day ?? null };
}
