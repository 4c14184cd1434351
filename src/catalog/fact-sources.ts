import type { AdPlatformType } from '../shared/ad-platforms.js';
import type { FactColumn } from './fact-columns.js';
import { ROLLUPS } from './rollups.js';
import { FACT_MEASURES, SHARE_MEASURES, type BaseMeasure, type FactMeasure } from './statistics.js';

export type { FactColumn } from './fact-columns.js';

/**
 * Where report figures come from (issue 40): each table declares its grain (one row per distinct
 * value of these columns with any activity), the measures it carries and the platforms that
 * report it. The planner refuses a segment, filter or statistic that no source of a request has;
 * the compiler reads the source the same rule picks; `GET /reporting/v0/fields` and the OpenAPI
 * document list what the sources of each endpoint offer.
 *
 * - `facts`: as a statistics sync writes them (the level's table);
 * - `rollup`: the facts summed over fewer columns, for speed only (./rollups.ts);
 * - `breakdown`: the campaign's day split by a breakdown the platform reports separately (hours,
 *   audience, placement, geography, conversion actions); each bucket set sums exactly to the
 *   campaign's day, so one breakdown source answers one breakdown at a time;
 * - `reach`, `impressionShare`: the non-additive inputs of the platform endpoints;
 * - `calls`: the call records behind /reporting/v0/call-details.
 */
export interface FactSourceDefinition {
  readonly name: string;
  readonly table: string;
  readonly kind: 'facts' | 'rollup' | 'breakdown' | 'reach' | 'impressionShare' | 'calls';
  readonly grain: readonly FactColumn[];
  readonly measures: readonly BaseMeasure[];
  /** The platforms that report it; undefined: all. */
  readonly platforms?: readonly AdPlatformType[] | undefined;
  /** Days back from today the source keeps (hourly facts); a report reaching further back is refused. */
  readonly retentionDays?: number | undefined;
  readonly description: string;
}

const CAMPAIGN_DAY = ['organization_id', 'day', 'adplatform_account_id', 'campaign_id'] as const;
const AD_FACTS: readonly FactMeasure[] = FACT_MEASURES;
/** Hourly facts are kept this long, as Microsoft Advertising keeps hourly data (6 months). */
export const HOURLY_RETENTION_DAYS = 180;
/**
 * Search term facts are kept this long, a quarter, to bound the table: 1 to 4 terms per keyword
 * (./search-terms.ts), 1.5 rows per keyword row where the split leaves none empty; at scale 10
 * (400 days) 1.86 M rows, 0.31x the 6.05 M keyword rows, +8.8 % on the database file.
 */
export const SEARCH_TERM_RETENTION_DAYS = 90;

export const BREAKDOWN_SOURCES: readonly FactSourceDefinition[] = [
  {
    name: 'hours',
    table: 'fact_campaign_hourly',
    kind: 'breakdown',
    grain: [...CAMPAIGN_DAY, 'hour', 'device', 'network'],
    measures: AD_FACTS,
    retentionDays: HOURLY_RETENTION_DAYS,
    description: "a campaign's day by hour of the platform account's day (and device, network)",
  },
  {
    name: 'audience',
    table: 'fact_campaign_audience_daily',
    kind: 'breakdown',
    grain: [...CAMPAIGN_DAY, 'age', 'gender'],
    measures: AD_FACTS,
    platforms: ['FACEBOOK'],
    description: "a campaign's day by age and gender (Meta's breakdowns age, gender)",
  },
  {
    name: 'placement',
    table: 'fact_campaign_placement_daily',
    kind: 'breakdown',
    grain: [...CAMPAIGN_DAY, 'publisher_platform', 'platform_position'],
    measures: AD_FACTS,
    platforms: ['FACEBOOK'],
    description: "a campaign's day by placement (Meta's breakdowns publisher_platform, platform_position)",
  },
  {
    name: 'geography',
    table: 'fact_campaign_geo_daily',
    kind: 'breakdown',
    grain: [...CAMPAIGN_DAY, 'country', 'region'],
    measures: AD_FACTS,
    description: "a campaign's day by the viewer's country and region",
  },
  {
    name: 'conversionActions',
    table: 'fact_campaign_conversion_action_daily',
    kind: 'breakdown',
    grain: [...CAMPAIGN_DAY, 'conversion_action'],
    // A conversion belongs to one action; an impression or a click to none.
    measures: ['conversions', 'conversionValue'],
    description: "a campaign's conversions by the conversion action they count for",
  },
  {
    name: 'attribution',
    table: 'fact_campaign_attribution_daily',
    kind: 'breakdown',
    grain: [...CAMPAIGN_DAY, 'attribution_part'],
    measures: AD_FACTS,
    platforms: ['FACEBOOK'],
    description: "a campaign's day with its conversions by attribution window (attributionWindows=)",
  },
];

const ENTITY_FACT_GRAIN = ['organization_id', 'day', 'adplatform_account_id', 'campaign_id', 'ad_group_id'] as const;

export const FACT_SOURCES: readonly FactSourceDefinition[] = [
  {
    name: 'adFacts',
    table: 'fact_ad_daily',
    kind: 'facts',
    grain: [...ENTITY_FACT_GRAIN, 'ad_id', 'device', 'network'],
    measures: AD_FACTS,
    description: 'daily figures per ad, device and network',
  },
  {
    name: 'keywordFacts',
    table: 'fact_keyword_daily',
    kind: 'facts',
    grain: [...ENTITY_FACT_GRAIN, 'keyword_id', 'device', 'network'],
    measures: AD_FACTS,
    platforms: ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'],
    description: 'daily figures per keyword, device and network (search platforms)',
  },
  {
    name: 'searchTermFacts',
    table: 'fact_search_term_daily',
    kind: 'facts',
    grain: [...ENTITY_FACT_GRAIN, 'keyword_id', 'search_term_id', 'device', 'network'],
    measures: AD_FACTS,
    platforms: ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'],
    retentionDays: SEARCH_TERM_RETENTION_DAYS,
    description:
      'daily figures per search term (the query that matched a keyword), device and network (search platforms)',
  },
  ...ROLLUPS.map((rollup): FactSourceDefinition => ({
    name: rollup.table,
    table: rollup.table,
    kind: 'rollup',
    grain: rollup.grain,
    measures: AD_FACTS,
    description: `fact_ad_daily summed to ${rollup.grain.join(', ')}`,
  })),
  ...BREAKDOWN_SOURCES,
  {
    name: 'impressionShare',
    table: 'fact_impression_share_daily',
    kind: 'impressionShare',
    grain: [...CAMPAIGN_DAY, 'device', 'network'],
    measures: SHARE_MEASURES,
    platforms: ['GOOGLE_ADS'],
    description: 'impression-share counts per campaign, day, device and network (Google Search)',
  },
  {
    name: 'reach',
    table: 'fact_audience_runs',
    kind: 'reach',
    // FACEBOOK reports no device and one network (supplement 2): the runs carry UNKNOWN and SOCIAL.
    grain: [...ENTITY_FACT_GRAIN, 'ad_id', 'device', 'network'],
    measures: ['reach'],
    platforms: ['FACEBOOK'],
    description: "the people each ad reached per day, as runs of the platform account's audience",
  },
  {
    name: 'calls',
    table: 'call_details',
    kind: 'calls',
    grain: [...ENTITY_FACT_GRAIN],
    measures: [],
    platforms: ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'],
    description: 'one row per phone call from an ad (/reporting/v0/call-details)',
  },
];

export const FACT_SOURCE_BY_TABLE: ReadonlyMap<string, FactSourceDefinition> = new Map(
  FACT_SOURCES.map((s) => [s.table, s]),
);

const holds = (source: FactSourceDefinition, columns: Iterable<FactColumn>) =>
  [...columns].every((c) => source.grain.includes(c));

/** Fewest grain columns first: fewer columns, fewer rows. */
const ROLLUPS_BY_SIZE = FACT_SOURCES.filter((s) => s.kind === 'rollup').sort((a, b) => a.grain.length - b.grain.length);

/**
 * The source a report's additive sums are read from, given every fact column it touches (scope,
 * level key, segments, fact filters): the level's facts or the smallest rollup that holds them
 * all (DESIGN D10, aggregate navigation; `rollups: false` never a rollup); where the facts lack a
 * column (an hour, an age), the breakdown source that has them. Undefined: no source has them
 * all (two breakdowns, a breakdown below the campaign): the planner refuses such a request.
 */
export function additiveSourceFor(
  factTable: string,
  columns: ReadonlySet<FactColumn>,
  rollups = true,
  platform?: AdPlatformType,
): FactSourceDefinition | undefined {
  const facts = FACT_SOURCE_BY_TABLE.get(factTable)!;
  if (holds(facts, columns)) {
    if (!rollups || factTable !== 'fact_ad_daily') return facts;
    return ROLLUPS_BY_SIZE.find((rollup) => holds(rollup, columns)) ?? facts;
  }
  if (factTable !== 'fact_ad_daily') return undefined;
  return BREAKDOWN_SOURCES.find((breakdown) => reportedOn(breakdown, platform) && holds(breakdown, columns));
}

/**
 * Whether an endpoint of `platform` (campaigns/facebook, adplatform-accounts/google-ads) may read
 * the source: that platform reports it. An endpoint of every platform (undefined) reads them all.
 */
export function reportedOn(source: FactSourceDefinition, platform: AdPlatformType | undefined): boolean {
  return platform === undefined || source.platforms === undefined || source.platforms.includes(platform);
}
