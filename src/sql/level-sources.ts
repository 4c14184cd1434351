import { FACT_SOURCE_BY_TABLE } from '../catalog/fact-sources.js';
import type { LevelPath } from '../catalog/levels.js';
import { SEARCH_TERM_SLOTS, SEARCH_TERM_TEMPLATES } from '../catalog/search-terms.js';
import type { SqlDialect } from './dialect.js';

const CUSTOM_COLUMNS = Array.from({ length: 30 }, (_, i) => `a.field${i + 1}`).join(', ');

/**
 * One row per entity of the level in the organization (`org`: its bound placeholder), columns
 * named as the level's row keys (quoted by the dialect) plus what embeds and filters read.
 * Over three or more joined tables every column is aliased: ClickHouse names an unaliased
 * `g.id` there `g.id`, not `id`.
 */
export function levelEntities(level: LevelPath, org: string, d: SqlDialect): string {
  const q = d.quote;
  switch (level) {
    case 'accounts':
      return `SELECT a.id, a.name, a.currency, ${CUSTOM_COLUMNS} FROM accounts a WHERE a.organization_id = ${org}`;
    case 'adplatform-accounts':
      // Every platform account the organization knows, as GET /provisioning/v0/adplatform-accounts lists them.
      return `SELECT p.id, p.name, p.ad_platform_type AS ${q('adPlatformType')}, p.ad_platform_id AS ${q('adPlatformId')}, p.currency,
                      p.time_zone AS ${q('timeZone')}
                 FROM adplatform_accounts p
                WHERE p.organization_id = ${org}`;
    case 'campaigns':
      return `SELECT c.id, c.name, c.adplatform_account_id AS ${q('adPlatformAccountId')}, c.ad_platform_type AS ${q('adPlatformAccountType')}, c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = ${org}`;
    case 'adgroups':
      return `SELECT g.id AS id, g.name AS name, c.adplatform_account_id AS ${q('adPlatformAccountId')}, g.campaign_id AS ${q('campaignId')},
                      c.ad_platform_type AS ${q('adPlatformAccountType')}, g.ad_platform_id AS ${q('adPlatformId')}, g.status AS status, p.currency AS currency
                 FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE g.organization_id = ${org}`;
    case 'keywords':
      return `SELECT k.id AS id, k.text AS text, c.adplatform_account_id AS ${q('adPlatformAccountId')}, g.campaign_id AS ${q('campaignId')}, k.ad_group_id AS ${q('adGroupId')},
                      c.ad_platform_type AS ${q('adPlatformAccountType')}, k.ad_platform_id AS ${q('adPlatformId')}, k.match_type AS ${q('matchType')}, k.status AS status, p.currency AS currency
                 FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE k.organization_id = ${org}`;
    case 'ads':
      return `SELECT a.id AS id, a.name AS name, c.adplatform_account_id AS ${q('adPlatformAccountId')}, g.campaign_id AS ${q('campaignId')}, a.ad_group_id AS ${q('adGroupId')},
                      c.ad_platform_type AS ${q('adPlatformAccountType')}, a.ad_type AS ${q('adType')}, a.status AS status, p.currency AS currency,
                      a.image_urls AS ${q('__images')}, a.specific_fields AS ${q('__specificFields')}
                 FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE a.organization_id = ${org}`;
    case 'search-terms':
      // The terms of each keyword (../catalog/search-terms.ts): slots 0 .. id % SLOTS, text from the
      // templates, on the platforms that report search terms. A CROSS JOIN and a WHERE, which both engines plan.
      return `SELECT k.id * ${SEARCH_TERM_SLOTS} + t.slot AS id, ${SEARCH_TERM_TEXT} AS ${q('searchTerm')},
                      c.adplatform_account_id AS ${q('adPlatformAccountId')}, g.campaign_id AS ${q('campaignId')}, k.ad_group_id AS ${q('adGroupId')},
                      k.id AS ${q('keywordId')}, k.text AS ${q('keywordText')}, c.ad_platform_type AS ${q('adPlatformAccountType')},
                      k.match_type AS ${q('matchType')}, p.currency AS currency
                 FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                 CROSS JOIN (${SEARCH_TERM_TEMPLATES.map((_, slot) => `SELECT ${slot} AS slot`).join(' UNION ALL ')}) t
                WHERE k.organization_id = ${org} AND t.slot <= k.id % ${SEARCH_TERM_SLOTS}
                  AND c.ad_platform_type IN (${SEARCH_TERM_PLATFORMS})`;
  }
}

/** Our constants as SQL text literals; both engines read a plain '...' alike when it has no quote or backslash. */
function constant(text: string): string {
  if (/['\\]/.test(text)) throw new Error(`not a plain constant: ${text}`);
  return `'${text}'`;
}

const SEARCH_TERM_TEXT = `CASE t.slot ${SEARCH_TERM_TEMPLATES.map(
  ({ prefix, suffix }, slot) =>
    `WHEN ${slot} THEN ${[...(prefix ? [constant(prefix)] : []), 'k.text', ...(suffix ? [constant(suffix)] : [])].join(' || ')}`,
).join(' ')} END`;

const SEARCH_TERM_PLATFORMS = FACT_SOURCE_BY_TABLE.get('fact_search_term_daily')!.platforms!.map(constant).join(', ');
