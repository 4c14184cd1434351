import { ROLLUP_MEASURES } from '../../catalog/rollups.js';

/**
 * The reporting model as relations (issue 41): what a BI tool sees over the SQL endpoint. Each
 * relation is a SELECT over the internal tables scoped to one organization (`{org}`, bound to the
 * caller's organization by the translator; never a value from the statement), with PostgreSQL
 * names and types. Daily relations hold additive figures only, so that any SUM a tool writes over
 * them is a right number; ratios and deduplicated figures are not columns (README "SQL endpoint").
 *
 * Money: the platform levels in the ad platform account's currency, the account level converted
 * per day into the account's currency with the day's reference rates (the REST formula, exact to
 * 1e-9 per row); every daily row carries `currency`.
 */

export type ColumnType =
  'bigint' | 'integer' | 'smallint' | 'numeric' | 'double precision' | 'text' | 'date' | 'boolean';

export interface RelationColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly description: string;
}

export interface ModelRelation {
  readonly name: string;
  readonly kind: 'dimension' | 'daily';
  readonly description: string;
  readonly columns: readonly RelationColumn[];
  /** A SELECT whose output columns are `columns`, in order; `{org}` is the organization's placeholder. */
  readonly body: string;
}

const col = (name: string, type: ColumnType, description: string): RelationColumn => ({ name, type, description });

/** The additive measures every daily relation carries, in this order. */
const MEASURES: readonly RelationColumn[] = [
  col('impressions', 'bigint', 'Impressions.'),
  col('clicks', 'bigint', 'Clicks.'),
  col('cost', 'numeric', 'Cost in `currency`, exact to the micro.'),
  col(
    'cost_with_markup',
    'numeric',
    "Cost with the markup period of the day of the row's account (first linked account below the account level).",
  ),
  col('conversions', 'numeric', 'Conversions (fractional where the platform attributes fractions).'),
  col('conversion_value', 'numeric', 'Conversion value in `currency`.'),
  col('calls', 'bigint', 'Calls.'),
  col('call_conversions', 'bigint', 'Call conversions.'),
  col('call_conversions_fractional', 'numeric', 'Call conversions, fractional.'),
];
/** fact_ad_daily summed to the ad group: one row per ad group, day, device and network. */
const adGroupFacts = `(SELECT organization_id, day, adplatform_account_id, campaign_id, ad_group_id, device, network, ${ROLLUP_MEASURES.map((m) => `sum(${m}) AS ${m}`).join(', ')}
  FROM fact_ad_daily WHERE organization_id = {org} GROUP BY ALL)`;

const DAY = col('day', 'date', "The day in the ad platform account's time zone.");
const DEVICE = col('device', 'text', 'DESKTOP, MOBILE, TABLET, CONNECTED_TV, OTHER or UNKNOWN.');
const NETWORK = col('network', 'text', 'SEARCH, SEARCH_PARTNERS, DISPLAY or SOCIAL.');
const CURRENCY = col('currency', 'text', 'ISO 4217 code of the money columns of this row.');
const PLATFORM_ACCOUNT = col('adplatform_account_id', 'bigint', 'The ad platform account (adplatform_accounts.id).');
const PLATFORM = col('ad_platform_type', 'text', 'GOOGLE_ADS, MICROSOFT_ADVERTISING or FACEBOOK.');

const markupRate = `(1 + coalesce(mk.rate, 0)::DOUBLE)`;
const markupOfFirstAccount = `LEFT JOIN (SELECT adplatform_account_id, min(account_id) AS account_id FROM account_adplatform_links GROUP BY ALL) ma ON ma.adplatform_account_id = f.adplatform_account_id
  LEFT JOIN markups mk ON mk.account_id = ma.account_id AND f.day BETWEEN mk.start_date AND coalesce(mk.end_date, DATE '9999-12-31')`;
/** exactMoney of the dialect: a decimal rounded to 1e-9, so that sums do not drift with row order. */
const exact = (sql: string) => `(CAST(round((${sql}) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9)))`;

/** A daily relation of a platform level: the fact or rollup table's rows, money as reported. */
function platformDaily(
  table: string,
  keys: readonly (readonly [column: string, RelationColumn])[],
  segments: readonly (readonly [sql: string, RelationColumn])[],
): Pick<ModelRelation, 'columns' | 'body'> {
  const select = [
    'f.day',
    ...keys.map(([column, c]) => `f.${column} AS ${c.name}`),
    ...segments.map(([sql, c]) => `${sql} AS ${c.name}`),
    'f.impressions::BIGINT AS impressions',
    'f.clicks::BIGINT AS clicks',
    'f.cost::DECIMAL(38,9) AS cost',
    `${exact(`f.cost * ${markupRate}`)} AS cost_with_markup`,
    'f.conversions AS conversions',
    'f.conversion_value::DECIMAL(38,9) AS conversion_value',
    'f.calls::BIGINT AS calls',
    'f.call_conversions::BIGINT AS call_conversions',
    'f.call_conversions_fractional AS call_conversions_fractional',
    'p.currency AS currency',
  ];
  return {
    columns: [DAY, ...keys.map(([, c]) => c), ...segments.map(([, c]) => c), ...MEASURES, CURRENCY],
    body: `SELECT ${select.join(', ')}
  FROM ${table} f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
  ${markupOfFirstAccount}
 WHERE f.organization_id = {org}`,
  };
}

const ACCOUNT_KEY = col('account_id', 'bigint', 'The account (accounts.id).');
const CAMPAIGN_KEY = col('campaign_id', 'bigint', 'The campaign (campaigns.id).');
const AD_GROUP_KEY = col('ad_group_id', 'bigint', 'The ad group (ad_groups.id).');
const deviceNetwork = [
  ['f.device::VARCHAR', DEVICE],
  ['f.network::VARCHAR', NETWORK],
] as const;
const campaignKeys = [
  ['adplatform_account_id', PLATFORM_ACCOUNT],
  ['campaign_id', CAMPAIGN_KEY],
] as const;

const customFields: RelationColumn[] = [
  ...Array.from({ length: 20 }, (_, i) => col(`field${i + 1}`, 'text', `Custom field ${i + 1} (text).`)),
  ...Array.from({ length: 10 }, (_, i) =>
    col(`field${i + 21}`, 'double precision', `Custom field ${i + 21} (number).`),
  ),
];

export const MODEL_RELATIONS: readonly ModelRelation[] = [
  {
    name: 'accounts',
    kind: 'dimension',
    description: "The organization's accounts (advertisers), with their custom fields.",
    columns: [
      col('id', 'bigint', 'Account id.'),
      col('name', 'text', 'Name.'),
      col('currency', 'text', 'The currency money is converted into at the account level.'),
      col('language_code', 'text', 'ISO 639-1.'),
      col('country_code', 'text', 'ISO 3166-1 alpha-2.'),
      ...customFields,
    ],
    body: `SELECT a.id, a.name, a.currency, a.language_code, a.country_code, ${customFields.map((c) => `a.${c.name}`).join(', ')}
  FROM accounts a WHERE a.organization_id = {org}`,
  },
  {
    name: 'account_labels',
    kind: 'dimension',
    description: 'Labels of accounts: one row per account and label name.',
    columns: [ACCOUNT_KEY, col('name', 'text', 'Label name.'), col('value', 'text', 'Label value.')],
    body: `SELECT l.account_id, l.name, l.value FROM account_labels l JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = {org}`,
  },
  {
    name: 'adplatform_accounts',
    kind: 'dimension',
    description: 'Ad platform accounts known to the organization.',
    columns: [
      col('id', 'bigint', 'Ad platform account id.'),
      col('name', 'text', 'Name.'),
      PLATFORM,
      col('ad_platform_id', 'text', "The platform's own id."),
      col('currency', 'text', 'The currency the platform reports money in.'),
      col('time_zone', 'text', 'The IANA zone the platform reports days and hours in.'),
    ],
    body: `SELECT p.id, p.name, p.ad_platform_type, p.ad_platform_id, p.currency, p.time_zone FROM adplatform_accounts p WHERE p.organization_id = {org}`,
  },
  {
    name: 'account_adplatform_links',
    kind: 'dimension',
    description: 'Which ad platform accounts are linked to which account.',
    columns: [ACCOUNT_KEY, PLATFORM_ACCOUNT, col('status', 'text', 'Link status.')],
    body: `SELECT l.account_id, l.adplatform_account_id, l.status FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = {org}`,
  },
  {
    name: 'campaigns',
    kind: 'dimension',
    description: 'Campaigns.',
    columns: [
      col('id', 'bigint', 'Campaign id.'),
      col('name', 'text', 'Name.'),
      PLATFORM_ACCOUNT,
      PLATFORM,
      col('ad_platform_id', 'text', "The platform's own id."),
      col('status', 'text', 'Status.'),
    ],
    body: `SELECT c.id, c.name, c.adplatform_account_id, c.ad_platform_type, c.ad_platform_id, c.status FROM campaigns c WHERE c.organization_id = {org}`,
  },
  {
    name: 'campaign_labels',
    kind: 'dimension',
    description: 'Labels of campaigns: one row per campaign and label name.',
    columns: [CAMPAIGN_KEY, col('name', 'text', 'Label name.'), col('value', 'text', 'Label value.')],
    body: `SELECT l.campaign_id, l.name, l.value FROM campaign_labels l JOIN campaigns c ON c.id = l.campaign_id WHERE c.organization_id = {org}`,
  },
  {
    name: 'ad_groups',
    kind: 'dimension',
    description: 'Ad groups.',
    columns: [
      col('id', 'bigint', 'Ad group id.'),
      col('name', 'text', 'Name.'),
      CAMPAIGN_KEY,
      col('ad_platform_id', 'text', "The platform's own id."),
      col('status', 'text', 'Status.'),
    ],
    body: `SELECT g.id, g.name, g.campaign_id, g.ad_platform_id, g.status FROM ad_groups g WHERE g.organization_id = {org}`,
  },
  {
    name: 'ads',
    kind: 'dimension',
    description: 'Ads.',
    columns: [
      col('id', 'bigint', 'Ad id.'),
      col('name', 'text', 'Name.'),
      AD_GROUP_KEY,
      col('ad_platform_id', 'text', "The platform's own id."),
      col('status', 'text', 'Status.'),
      col('ad_type', 'text', 'Ad type.'),
      col('headline', 'text', 'Headline.'),
      col('description', 'text', 'Description.'),
      col('final_url', 'text', 'Final URL.'),
    ],
    body: `SELECT d.id, d.name, d.ad_group_id, d.ad_platform_id, d.status, d.ad_type, d.headline, d.description, d.final_url FROM ads d WHERE d.organization_id = {org}`,
  },
  {
    name: 'keywords',
    kind: 'dimension',
    description: 'Keywords (GOOGLE_ADS, MICROSOFT_ADVERTISING).',
    columns: [
      col('id', 'bigint', 'Keyword id.'),
      col('text', 'text', 'Keyword text.'),
      AD_GROUP_KEY,
      col('ad_platform_id', 'text', "The platform's own id."),
      col('match_type', 'text', 'Match type.'),
      col('status', 'text', 'Status.'),
    ],
    body: `SELECT k.id, k.text, k.ad_group_id, k.ad_platform_id, k.match_type, k.status FROM keywords k WHERE k.organization_id = {org}`,
  },
  {
    name: 'account_daily',
    kind: 'daily',
    description:
      "Per account, linked ad platform account, day, device and network; money converted into the account's currency at the day's reference rate.",
    columns: [DAY, ACCOUNT_KEY, PLATFORM_ACCOUNT, DEVICE, NETWORK, ...MEASURES, CURRENCY],
    body: `SELECT f.day, l.account_id, f.adplatform_account_id, f.device::VARCHAR AS device, f.network::VARCHAR AS network,
    f.impressions::BIGINT AS impressions, f.clicks::BIGINT AS clicks,
    ${exact('f.cost * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)')} AS cost,
    ${exact(`f.cost * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE) * ${markupRate}`)} AS cost_with_markup,
    f.conversions AS conversions,
    ${exact('f.conversion_value * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)')} AS conversion_value,
    f.calls::BIGINT AS calls, f.call_conversions::BIGINT AS call_conversions, f.call_conversions_fractional AS call_conversions_fractional,
    a.currency AS currency
  FROM rollup_platform_account_daily f
  JOIN account_adplatform_links l ON l.adplatform_account_id = f.adplatform_account_id
  JOIN accounts a ON a.id = l.account_id AND a.organization_id = {org}
  JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
  LEFT JOIN fx_rates ra ON ra.day = f.day AND ra.currency = a.currency
  LEFT JOIN fx_rates rp ON rp.day = f.day AND rp.currency = p.currency
  LEFT JOIN markups mk ON mk.account_id = l.account_id AND f.day BETWEEN mk.start_date AND coalesce(mk.end_date, DATE '9999-12-31')
 WHERE f.organization_id = {org}`,
  },
  {
    name: 'adplatform_account_daily',
    kind: 'daily',
    description: "Per ad platform account, day, device and network, in the platform account's currency.",
    ...platformDaily('rollup_platform_account_daily', [['adplatform_account_id', PLATFORM_ACCOUNT]], deviceNetwork),
  },
  {
    name: 'campaign_daily',
    kind: 'daily',
    description: "Per campaign, day, device and network, in the platform account's currency.",
    ...platformDaily('rollup_campaign_daily', campaignKeys, deviceNetwork),
  },
  {
    name: 'ad_group_daily',
    kind: 'daily',
    description: "Per ad group, day, device and network, in the platform account's currency.",
    ...platformDaily(adGroupFacts, [...campaignKeys, ['ad_group_id', AD_GROUP_KEY]], deviceNetwork),
  },
  {
    name: 'ad_daily',
    kind: 'daily',
    description: "Per ad, day, device and network, in the platform account's currency.",
    ...platformDaily(
      'fact_ad_daily',
      [...campaignKeys, ['ad_group_id', AD_GROUP_KEY], ['ad_id', col('ad_id', 'bigint', 'The ad (ads.id).')]],
      deviceNetwork,
    ),
  },
  {
    name: 'keyword_daily',
    kind: 'daily',
    description:
      "Per keyword, day, device and network (GOOGLE_ADS, MICROSOFT_ADVERTISING), in the platform account's currency.",
    ...platformDaily(
      'fact_keyword_daily',
      [
        ...campaignKeys,
        ['ad_group_id', AD_GROUP_KEY],
        ['keyword_id', col('keyword_id', 'bigint', 'The keyword (keywords.id).')],
      ],
      deviceNetwork,
    ),
  },
  {
    name: 'campaign_hourly',
    kind: 'daily',
    description:
      "Per campaign, day, hour of the day (0-23, the platform account's local hour), device and network; kept 180 days.",
    ...platformDaily('fact_campaign_hourly', campaignKeys, [
      ['f.hour::INTEGER', col('hour', 'integer', 'Hour of the day, 0-23.')],
      ...deviceNetwork,
    ]),
  },
  {
    name: 'campaign_audience_daily',
    kind: 'daily',
    description: 'Per campaign, day, age and gender (FACEBOOK).',
    ...platformDaily('fact_campaign_audience_daily', campaignKeys, [
      ['f.age', col('age', 'text', 'Age range (18-24, ...).')],
      ['f.gender', col('gender', 'text', 'Gender.')],
    ]),
  },
  {
    name: 'campaign_placement_daily',
    kind: 'daily',
    description: 'Per campaign, day, publisher platform and position (FACEBOOK).',
    ...platformDaily('fact_campaign_placement_daily', campaignKeys, [
      ['f.publisher_platform', col('publisher_platform', 'text', 'facebook, instagram, ...')],
      ['f.platform_position', col('platform_position', 'text', 'feed, story, ...')],
    ]),
  },
  {
    name: 'campaign_geo_daily',
    kind: 'daily',
    description: 'Per campaign, day, country and region.',
    ...platformDaily('fact_campaign_geo_daily', campaignKeys, [
      ['f.country', col('country', 'text', 'ISO 3166-1 alpha-2.')],
      ['f.region', col('region', 'text', 'Region.')],
    ]),
  },
  {
    name: 'campaign_conversion_action_daily',
    kind: 'daily',
    description:
      'Per campaign, day and conversion action (conversions and conversion value; the other measures are 0).',
    ...platformDaily('fact_campaign_conversion_action_daily', campaignKeys, [
      ['f.conversion_action', col('conversion_action', 'text', 'Conversion action.')],
    ]),
  },
];

const BY_NAME = new Map(MODEL_RELATIONS.map((r) => [r.name, qualified(r)]));

/** The relation of that name (PostgreSQL folds unquoted names to lower case before this). */
export function modelRelation(name: string): ModelRelation | undefined {
  return BY_NAME.get(name);
}

/**
 * What is not additive has its own grain: a table function over a date range, one row per
 * campaign, so that no SUM a tool writes can add ratios, reach or shares (README "SQL endpoint").
 * `{start}` and `{end}` are the arguments (cast to date by the translator), `{org}` the organization.
 */
export interface ModelTableFunction {
  readonly name: string;
  readonly description: string;
  readonly args: readonly RelationColumn[];
  readonly columns: readonly RelationColumn[];
  readonly body: string;
}

const RANGE_ARGS = [
  col('start_date', 'date', 'First day, inclusive.'),
  col('end_date', 'date', 'Last day, inclusive.'),
];
const ratio = (numerator: string, denominator: string, scale = '') =>
  `${scale}sum(${numerator})::DOUBLE / nullif(sum(${denominator}), 0)::DOUBLE`;
/** Google reports shares under 0.1 as 0.0999 and lost shares over 0.9 as 0.9001; so does REST, so do these. */
const share = (numerator: string, clamp: 'floor' | 'ceiling') => {
  const value = `(sum(f.${numerator})::DOUBLE / nullif(sum(f.eligible_impressions), 0)::DOUBLE)`;
  return clamp === 'floor'
    ? `CASE WHEN ${value} < 0.1 THEN 0.0999 ELSE ${value} END`
    : `CASE WHEN ${value} > 0.9 THEN 0.9001 ELSE ${value} END`;
};

export const MODEL_TABLE_FUNCTIONS: readonly ModelTableFunction[] = [
  {
    name: 'campaign_ratios',
    description:
      "Per campaign over a date range: the sums and the ratios of the sums (never averages of rows), in the platform account's currency.",
    args: RANGE_ARGS,
    columns: [
      CAMPAIGN_KEY,
      CURRENCY,
      col('impressions', 'bigint', 'Impressions.'),
      col('clicks', 'bigint', 'Clicks.'),
      col('cost', 'numeric', 'Cost.'),
      col('conversions', 'numeric', 'Conversions.'),
      col('conversion_value', 'numeric', 'Conversion value.'),
      col('ctr', 'double precision', 'clicks / impressions; NULL when there are none.'),
      col('average_cpc', 'double precision', 'cost / clicks.'),
      col('average_cpm', 'double precision', '1000 * cost / impressions.'),
      col('conversion_rate', 'double precision', 'conversions / clicks.'),
      col('cost_per_conversion', 'double precision', 'cost / conversions.'),
      col('value_per_conversion', 'double precision', 'conversion value / conversions.'),
      col('roas', 'double precision', 'conversion value / cost.'),
    ],
    body: `SELECT f.campaign_id, p.currency, sum(f.impressions)::BIGINT AS impressions, sum(f.clicks)::BIGINT AS clicks,
    sum(f.cost) AS cost, sum(f.conversions) AS conversions, sum(f.conversion_value) AS conversion_value,
    ${ratio('f.clicks', 'f.impressions')} AS ctr, ${ratio('f.cost', 'f.clicks')} AS average_cpc,
    ${ratio('f.cost', 'f.impressions', '1000 * ')} AS average_cpm, ${ratio('f.conversions', 'f.clicks')} AS conversion_rate,
    ${ratio('f.cost', 'f.conversions')} AS cost_per_conversion, ${ratio('f.conversion_value', 'f.conversions')} AS value_per_conversion,
    ${ratio('f.conversion_value', 'f.cost')} AS roas
  FROM rollup_campaign_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
 WHERE f.organization_id = {org} AND f.day BETWEEN {start} AND {end}
 GROUP BY f.campaign_id, p.currency`,
  },
  {
    name: 'campaign_reach',
    description:
      'Per FACEBOOK campaign over a date range: people reached (deduplicated over the days), impressions and frequency.',
    args: RANGE_ARGS,
    columns: [
      CAMPAIGN_KEY,
      col('reach', 'bigint', 'People reached at least once in the range (deduplicated).'),
      col('impressions', 'bigint', 'Impressions.'),
      col('frequency', 'double precision', 'impressions / reach.'),
    ],
    body: `SELECT r.campaign_id, r.reach, coalesce(i.impressions, 0)::BIGINT AS impressions, coalesce(i.impressions, 0)::DOUBLE / nullif(r.reach, 0)::DOUBLE AS frequency
  FROM (SELECT campaign_id, sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from))))::BIGINT AS reach
          FROM (SELECT u.campaign_id, u.user_from, u.user_to,
                       max(u.user_to) OVER (PARTITION BY u.campaign_id, u.adplatform_account_id ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
                  FROM fact_audience_runs u WHERE u.organization_id = {org} AND u.day BETWEEN {start} AND {end}) runs
         GROUP BY campaign_id) r
  LEFT JOIN (SELECT campaign_id, sum(impressions) AS impressions FROM rollup_campaign_daily
              WHERE organization_id = {org} AND day BETWEEN {start} AND {end} GROUP BY campaign_id) i ON i.campaign_id = r.campaign_id`,
  },
  {
    name: 'campaign_impression_share',
    description:
      'Per GOOGLE_ADS campaign over a date range: search impression shares as sums over sums, clamped as Google reports them.',
    args: RANGE_ARGS,
    columns: [
      CAMPAIGN_KEY,
      col('search_impressions', 'bigint', 'Impressions on Google Search.'),
      col('search_eligible_impressions', 'bigint', 'Impressions the campaign was eligible for.'),
      col(
        'search_impression_share',
        'double precision',
        'search_impressions / search_eligible_impressions (under 0.1: 0.0999).',
      ),
      col('search_budget_lost_impression_share', 'double precision', 'Lost to budget (over 0.9: 0.9001).'),
      col('search_rank_lost_impression_share', 'double precision', 'Lost to ad rank (over 0.9: 0.9001).'),
      col('search_top_impression_share', 'double precision', 'Above the organic results (under 0.1: 0.0999).'),
      col(
        'search_absolute_top_impression_share',
        'double precision',
        'In the very first position (under 0.1: 0.0999).',
      ),
    ],
    body: `SELECT f.campaign_id, sum(f.impressions)::BIGINT AS search_impressions, sum(f.eligible_impressions)::BIGINT AS search_eligible_impressions,
    ${share('impressions', 'floor')} AS search_impression_share,
    ${share('budget_lost_impressions', 'ceiling')} AS search_budget_lost_impression_share,
    ${share('rank_lost_impressions', 'ceiling')} AS search_rank_lost_impression_share,
    ${share('top_impressions', 'floor')} AS search_top_impression_share,
    ${share('absolute_top_impressions', 'floor')} AS search_absolute_top_impression_share
  FROM fact_impression_share_daily f
 WHERE f.organization_id = {org} AND f.day BETWEEN {start} AND {end}
 GROUP BY f.campaign_id`,
  },
];

const FUNCTIONS_BY_NAME = new Map(MODEL_TABLE_FUNCTIONS.map((f) => [f.name, qualified(f)]));

/**
 * Bodies name the internal tables schema-qualified (`main.accounts`): a statement's own WITH query
 * named `accounts` would otherwise stand in for the table inside a body, and a body that joins
 * `accounts` to scope labels would then scope them by the statement's rows, not the organization's.
 * A qualified name is never a WITH query's.
 */
function qualified<T extends { readonly body: string }>(relation: T): T {
  return { ...relation, body: relation.body.replace(/\b(FROM|JOIN)\s+(?!\()([a-z_]+)\b/g, '$1 main.$2') };
}

export function modelTableFunction(name: string): ModelTableFunction | undefined {
  return FUNCTIONS_BY_NAME.get(name);
}
