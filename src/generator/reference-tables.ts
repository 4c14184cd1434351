import type { Executor } from '../store/database.js';
import { currencyScale, THEMES, titleCase } from '../platforms/sandbox/vocabulary.js';
import { GENERATOR_MARKETS, ZERO_DECIMAL_CURRENCIES } from './markets.js';
import { sqlNumber, sqlString, sqlStringList } from './sql.js';
import { CELLS, type GeneratedDay } from './traffic.js';

/**
 * Small TEMP tables the generating SQL joins: markets, themes, device x network cells, days.
 * TEMP tables live on the writer connection only, for this run, and vanish when it closes.
 */
export async function createReferenceTables(tx: Executor, days: readonly GeneratedDay[]): Promise<void> {
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE gen_markets AS SELECT * FROM (VALUES ${GENERATOR_MARKETS.map(
      (m, i) =>
        `(${i}, ${sqlString(m.code)}, ${sqlString(m.country)}, ${sqlString(m.currency)}, ${sqlString(m.timeZone)}, ${sqlString(m.region)}, ` +
        `${sqlNumber(currencyScale(m.currency))}, ${ZERO_DECIMAL_CURRENCIES.has(m.currency) ? 0 : 2})`,
    ).join(', ')}) t(idx, code, country, currency, time_zone, region, currency_scale, decimals)`,
  );

  await tx.run(
    `CREATE OR REPLACE TEMP TABLE gen_themes AS SELECT * FROM (VALUES ${THEMES.map(
      (t, i) =>
        `(${i}, ${sqlString(t.label)}, ${sqlStringList(t.products)}, ${sqlStringList(t.products.map(titleCase))}, ` +
        `${sqlStringList(t.modifiers)}, ${sqlStringList(t.modifiers.map(titleCase))}, ${sqlStringList(t.audiences)}, ${sqlNumber(t.cpc)}, ${sqlNumber(t.orderValue)})`,
    ).join(', ')}) t(idx, label, products, product_titles, modifiers, modifier_titles, audiences, cpc, order_value)`,
  );

  await tx.run(
    `CREATE OR REPLACE TEMP TABLE gen_cells AS SELECT * FROM (VALUES ${CELLS.map(
      (c) =>
        `(${c.platform}, ${c.index}, ${sqlString(c.device)}::device_type, ${sqlString(c.network)}::network_type, ${c.netBit}, ` +
        `${sqlNumber(c.share)}, ${sqlNumber(c.ctr)}, ${sqlNumber(c.cpc)}, ${sqlNumber(c.cvr)}, ${sqlNumber(c.calls)})`,
    ).join(', ')}) t(platform, cell, device, network, net_bit, share, ctr, cpc, cvr, calls)`,
  );

  await tx.run(
    `CREATE OR REPLACE TEMP TABLE gen_days AS SELECT * FROM (VALUES ${days
      .map(
        (d) =>
          `(${d.index}, DATE '${d.date}', ${sqlNumber(d.season)}, ${sqlNumber(d.weekSearch)}, ${sqlNumber(d.weekSocial)}, ${sqlNumber(d.reported)})`,
      )
      .join(', ')}) t(day_idx, day, season, week_search, week_social, reported)`,
  );
}
