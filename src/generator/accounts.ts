import { AGENCIES, BRANDS, OFFICES, THEMES } from '../platforms/sandbox/vocabulary.js';
import type { Executor } from '../store/database.js';
import { reserveIds, rowCount } from './ids.js';
import { GENERATOR_MARKETS } from './markets.js';
import type { GenerateOptions } from './options.js';
import { Draws, permute, sqlStringList, weightedCase } from './sql.js';
import { TAG } from './tags.js';
import { GOOGLE, MICROSOFT } from './traffic.js';

/**
 * Organizations, their master accounts (one GOOGLE_ADS manager, one MICROSOFT_ADVERTISING
 * reseller each), accounts with labels and custom fields, and 1-3 ad platform accounts per
 * account, linked READ_WRITE and marked GENERATED in statistics_sources. Leaves TEMP tables
 * gen_orgs, gen_masters, gen_accounts and gen_pas for the campaign trees and the facts.
 */
export async function createAccounts(
  tx: Executor,
  d: Draws,
  options: GenerateOptions,
  firstDay: string,
): Promise<{ accounts: number; platformAccounts: number }> {
  // Organizations: K of them, accounts split as evenly as possible (the first ones get one more).
  const orgFirst = await reserveIds(tx, 'organization_id_seq', options.orgs);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_orgs AS
    SELECT k, ${orgFirst} + k AS id, 'Generated organization ' || (k + 1) || ' (seed ${options.seed})' AS name FROM range(${options.orgs}) t(k)`);
  await tx.run('INSERT INTO organizations (id, name) SELECT id, name FROM gen_orgs ORDER BY id');

  const masterFirst = await reserveIds(tx, 'adplatform_master_account_id_seq', options.orgs * 2);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_masters AS
    SELECT o.k AS org_k, o.id AS org_id, p AS platform, ${masterFirst} + o.k * 2 + p AS id,
           CASE p WHEN ${GOOGLE} THEN 'GOOGLE_ADS' ELSE 'MICROSOFT_ADVERTISING' END AS ad_platform_type,
           CASE p WHEN ${GOOGLE} THEN ${dashed(`1000000000 + ${permute(options.seed, 'o.k', 9_000_000_000, 1)}`)}
                  ELSE (10000000 + ${permute(options.seed, 'o.k', 90_000_000, 2)})::VARCHAR END AS ad_platform_id,
           CASE p WHEN ${GOOGLE} THEN 'Generated manager ' ELSE 'Generated reseller ' END || (o.k + 1) AS name,
           CASE p WHEN ${GOOGLE} THEN 'MANAGER' ELSE 'RESELLER' END AS kind
      FROM gen_orgs o, range(2) t(p)`);
  await tx.run(`INSERT INTO adplatform_master_accounts (id, organization_id, ad_platform_type, ad_platform_id, name, kind)
    SELECT id, org_id, ad_platform_type, ad_platform_id, name, kind FROM gen_masters ORDER BY id`);

  // Accounts.
  const n = options.accounts;
  const q = Math.floor(n / options.orgs);
  const r = n % options.orgs;
  const orgOf = `CASE WHEN i < ${r * (q + 1)} THEN i // ${q + 1} ELSE ${r} + (i - ${r * (q + 1)}) // ${q} END`;
  const languageOf = `CASE market ${GENERATOR_MARKETS.map(
    (m, i) =>
      `WHEN ${i} THEN ${sqlStringList(m.languages.map(([l]) => l))}[1 + ${weightedCase(
        d.u(TAG.accountLanguage, 'a.local'),
        m.languages.map(([, w]) => w),
      )}]`,
  ).join(' ')} END`;
  const accountFirst = await reserveIds(tx, 'account_id_seq', n);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_accounts AS
    WITH a AS (
      SELECT i AS local, ${orgOf} AS org_k,
             ${d.weightedIndex(
               GENERATOR_MARKETS.map((m) => m.weight),
               TAG.accountMarket,
               'i',
             )} AS market,
             (${d.hash(TAG.accountTheme, 'i')} % ${THEMES.length})::INTEGER AS theme,
             ${d.pick(BRANDS, TAG.accountBrand, 'i')} AS brand,
             ${d.lognormal(1.0, TAG.accountVolume, 'i')} AS volume,
             -0.15 + 0.5 * ${d.u(TAG.accountGrowth, 'i')} AS growth,
             ${d.pick(AGENCIES, TAG.accountAgency, 'i')} AS agency,
             ${d.pick(OFFICES, TAG.accountOffice, 'i')} AS office,
             ${d.u(TAG.accountTier, 'i')} AS tier_u,
             ${d.u(TAG.accountHasGoogle, 'i')} < 0.9 AS has_google,
             ${d.u(TAG.accountHasMicrosoft, 'i')} < 0.55 AS has_microsoft,
             ${d.u(TAG.accountHasFacebook, 'i')} < 0.35 AS has_facebook,
             ${d.u(TAG.accountBudget, 'i')} AS budget_u,
             ${d.u(TAG.accountRoas, 'i')} AS roas_u
        FROM range(${n}) t(i)
    ), b AS (
      SELECT a.*, ${languageOf} AS language, th.label AS theme_label,
             a.brand || ' ' || th.label || ' ' || m.code AS base_name,
             m.code AS market_code, m.country, m.currency, m.time_zone, m.region, m.currency_scale, m.decimals
        FROM a JOIN gen_markets m ON m.idx = a.market JOIN gen_themes th ON th.idx = a.theme
    )
    SELECT b.*, ${accountFirst} + local AS id, o.id AS org_id,
           base_name || CASE WHEN row_number() OVER (PARTITION BY base_name ORDER BY local) > 1
                             THEN ' ' || row_number() OVER (PARTITION BY base_name ORDER BY local) ELSE '' END AS name
      FROM b JOIN gen_orgs o ON o.k = b.org_k`);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_accounts AS
    SELECT *, trim(lower(regexp_replace(name, '[^A-Za-z0-9]+', '-', 'g')), '-') AS site_slug FROM gen_accounts`);
  await tx.run(`INSERT INTO accounts (id, organization_id, name, language_code, country_code, currency, auto_import, field1, field2, field3, field21, field22)
    SELECT id, org_id, name, language, country, currency, false, agency, office, 'CRM-' || lpad((10000 + local * 37 % 90000)::VARCHAR, 5, '0'),
           round(currency_scale * volume * (2000 + 18000 * budget_u), -2), round(2 + 6 * roas_u, 1)
      FROM gen_accounts ORDER BY id`);
  await tx.run(`INSERT INTO account_labels (account_id, name, value)
    SELECT id, 'clientId', 'C-' || (10000 + local) FROM gen_accounts
    UNION ALL SELECT id, 'tier', CASE WHEN volume * tier_u > 1.5 THEN 'gold' WHEN volume > 0.6 THEN 'silver' ELSE 'bronze' END FROM gen_accounts
    UNION ALL SELECT id, 'region', region FROM gen_accounts
    ORDER BY 1, 2`);

  // Ad platform accounts: 1-3 per account, one per platform it advertises on.
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_pas_pre AS
    SELECT row_number() OVER (ORDER BY a.local, p) - 1 AS local, p AS platform, a.local AS account_local, a.id AS account_id,
           a.org_k, a.org_id, a.name AS account_name, a.currency, a.time_zone, a.country, a.currency_scale, a.decimals,
           a.volume AS account_volume, a.growth, a.theme, a.site_slug, a.brand
      FROM gen_accounts a, range(3) t(p)
     WHERE CASE p WHEN ${GOOGLE} THEN a.has_google OR NOT (a.has_microsoft OR a.has_facebook)
                  WHEN ${MICROSOFT} THEN a.has_microsoft ELSE a.has_facebook END`);
  const paCount = await rowCount(tx, 'gen_pas_pre');
  const paFirst = await reserveIds(tx, 'adplatform_account_id_seq', paCount);
  await tx.run(`CREATE OR REPLACE TEMP TABLE gen_pas AS
    SELECT p.*, ${paFirst} + p.local AS id,
           ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'][p.platform + 1] AS ad_platform_type,
           CASE p.platform
             WHEN ${GOOGLE} THEN ${dashed(`1000000000 + ${permute(options.seed, 'p.local', 9_000_000_000, 3)}`)}
             WHEN ${MICROSOFT} THEN (100000000 + ${permute(options.seed, 'p.local', 900_000_000, 4)})::VARCHAR
             ELSE 'act_' || (100000000000000 + ${permute(options.seed, 'p.local', 900_000_000_000_000, 5)})::VARCHAR
           END AS ad_platform_id,
           p.account_name || ['', ' | Microsoft', ' | Social'][p.platform + 1] AS name,
           m.id AS master_id,
           p.account_volume * [1.0, 0.35, 0.8][p.platform + 1] * ${d.lognormal(0.5, TAG.paVolume, 'p.local')} AS volume,
           ${d.int(3, 40, TAG.paCampaigns, ['p.local'], 3)} AS n_campaigns,
           least(50000000, greatest(50000, floor(2000000 * ${d.lognormal(1.0, TAG.paAudience, 'p.local')})))::BIGINT AS audience,
           (100000000000000 + ${permute(options.seed, 'p.local', 900_000_000_000_000, 6)})::VARCHAR AS page_id
      FROM gen_pas_pre p LEFT JOIN gen_masters m ON m.org_k = p.org_k AND m.platform = p.platform`);
  await tx.run(`INSERT INTO adplatform_accounts (id, organization_id, ad_platform_type, ad_platform_id, name, currency, time_zone, master_account_id)
    SELECT id, org_id, ad_platform_type, ad_platform_id, name, currency, time_zone, master_id FROM gen_pas ORDER BY id`);
  await tx.run(`INSERT INTO account_adplatform_links (account_id, adplatform_account_id, status)
    SELECT account_id, id, 'READ_WRITE' FROM gen_pas ORDER BY account_id, id`);
  await tx.run(`INSERT INTO statistics_sources (adplatform_account_id, organization_id, source, synced_from, synced_through, synced_at)
    SELECT id, org_id, 'GENERATED', DATE '${firstDay}', DATE '${options.lastDay}', now() FROM gen_pas ORDER BY id`);

  return { accounts: n, platformAccounts: paCount };
}

/** A 10-digit number (first digit not 0) as ddd-ddd-dddd. */
function dashed(number: string): string {
  const n = `(${number})`;
  return `((${n} // 10000000)::VARCHAR || '-' || lpad(((${n} // 10000) % 1000)::VARCHAR, 3, '0') || '-' || lpad((${n} % 10000)::VARCHAR, 4, '0'))`;
}
