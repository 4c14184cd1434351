import type { Executor } from '../store/database.js';
import { reserveIds, rowCount } from './ids.js';
import type { GenerateOptions } from './options.js';
import type { Draws } from './sql.js';
import { TAG } from './tags.js';

/**
 * ~30 % of accounts get 1-3 markup periods, each inside its own slice of the range (so they
 * never overlap), rate 0.05-0.25 with 2-4 decimals; the last one is open-ended half the time.
 */
export async function createMarkups(
  tx: Executor,
  d: Draws,
  firstDay: string,
  options: GenerateOptions,
): Promise<number> {
  const span = options.days + 60;
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_markups AS
    WITH x AS (
      SELECT a.local AS account_local, a.id AS account_id, a.org_id, ${d.int(1, 3, TAG.markupCount, ['a.local'])} AS n
        FROM gen_accounts a WHERE ${d.u(TAG.markupAccount, 'a.local')} < 0.3
    ), y AS (
      SELECT x.*, j, ${span} // n AS slice FROM x, range(x.n) t(j)
    )
    SELECT row_number() OVER (ORDER BY account_local, j) - 1 AS local, account_id, org_id, j, n,
           round(0.05 + 0.2 * ${d.u(TAG.markupRate, 'account_local', 'j')}, ${d.int(2, 4, TAG.markupDecimals, ['account_local', 'j'])}::INTEGER) AS rate,
           DATE '${firstDay}' + (j * slice - 60 + floor(${d.u(TAG.markupStartTrim, 'account_local', 'j')} * slice * 0.3))::INTEGER AS start_date,
           CASE WHEN j = n - 1 AND ${d.u(TAG.markupOpen, 'account_local')} < 0.5 THEN NULL
                ELSE DATE '${firstDay}' + ((j + 1) * slice - 61 - floor(${d.u(TAG.markupEndTrim, 'account_local', 'j')} * slice * 0.3))::INTEGER END AS end_date
      FROM y`);
  const total = await rowCount(tx, 'gen_markups');
  const first = await reserveIds(tx, 'markup_id_seq', total);
  await tx.run(`INSERT INTO markups (id, organization_id, account_id, rate, start_date, end_date)
    SELECT ${first} + local, org_id, account_id, rate, start_date, end_date FROM gen_markups ORDER BY local`);
  return total;
}
