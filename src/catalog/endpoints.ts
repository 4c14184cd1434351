import { additiveSourceFor, type FactColumn } from './fact-sources.js';
import { LEVEL_BY_PATH, LEVELS, type LevelDefinition, type LevelPath } from './levels.js';
import { SEGMENTS, type SegmentDefinition } from './segments.js';
import {
  DEFAULT_STATISTICS,
  measuresOf,
  REACH_DEFAULTS,
  SHARE_DEFAULTS,
  sourceOf,
  STATISTIC_BY_NAME,
  STATISTICS,
  type MeasureSource,
  type StatisticDefinition,
} from './statistics.js';

/**
 * The statistics endpoints (spec 4.3): a level, optionally narrowed to one platform, with the
 * measure sources that platform reports. The plain levels read the ad or keyword facts; the
 * FACEBOOK endpoints add reach (audience runs), the Google Ads one impression share.
 */
export interface ReportEndpoint {
  /** Below /reporting/v0: `campaigns`, `campaigns/facebook`, ... */
  readonly path: string;
  readonly level: LevelDefinition;
  /** Only entities of platform accounts of this type are listed. */
  readonly platform: 'FACEBOOK' | 'GOOGLE_ADS' | undefined;
  readonly sources: readonly MeasureSource[];
  /** What `statistics`, filters, sorts and formulas may name here. */
  readonly statistics: readonly StatisticDefinition[];
  /** What a request without `statistics` gets. */
  readonly defaultStatistics: readonly StatisticDefinition[];
  /**
   * The segments some source of the level has, each on its own (which combine, and with which
   * statistics: ./fact-sources.ts; the planner asks additiveSourceFor per request).
   */
  readonly segments: readonly SegmentDefinition[];
  /** Whether `attributionWindows` is answered here: a FACEBOOK endpoint whose level the attribution parts reach (campaigns and above). */
  readonly attributionWindows: boolean;
  readonly summary: string;
}

const byName = (names: readonly string[]) => names.map((name) => STATISTIC_BY_NAME.get(name)!);

function endpoint(
  level: LevelPath,
  platform: ReportEndpoint['platform'],
  extra: MeasureSource | undefined,
  defaults: readonly string[],
  summary: string,
): ReportEndpoint {
  const sources: MeasureSource[] = extra ? ['facts', extra] : ['facts'];
  return {
    path: platform === undefined ? level : `${level}/${platform === 'FACEBOOK' ? 'facebook' : 'google-ads'}`,
    level: LEVEL_BY_PATH.get(level)!,
    platform,
    sources,
    statistics: STATISTICS.filter((s) => [...measuresOf(s)].every((m) => sources.includes(sourceOf(m)))),
    defaultStatistics: byName([...DEFAULT_STATISTICS, ...defaults]),
    segments: segmentsOf(LEVEL_BY_PATH.get(level)!, platform),
    attributionWindows:
      platform === 'FACEBOOK' &&
      additiveSourceFor(
        LEVEL_BY_PATH.get(level)!.factTable,
        new Set([...baseColumns(LEVEL_BY_PATH.get(level)!), 'attribution_part']),
        true,
        platform,
      ) !== undefined,
    summary,
  };
}

/** What every report of a level touches: its scope and its key. */
function baseColumns(level: LevelDefinition): FactColumn[] {
  const base: FactColumn[] = ['organization_id', 'day', 'adplatform_account_id'];
  if (level.factKey !== null) base.push(level.factKey as FactColumn);
  return base;
}

function segmentsOf(level: LevelDefinition, platform: ReportEndpoint['platform']): SegmentDefinition[] {
  const base = baseColumns(level);
  return SEGMENTS.filter(
    (s) => additiveSourceFor(level.factTable, new Set([...base, ...s.reads]), true, platform) !== undefined,
  );
}

export const ENDPOINTS: readonly ReportEndpoint[] = [
  ...LEVELS.map((level) => endpoint(level.path, undefined, undefined, [], `Statistics of ${level.plural}`)),
  endpoint(
    'adplatform-accounts',
    'FACEBOOK',
    'reach',
    REACH_DEFAULTS,
    'Reach and frequency statistics of FACEBOOK ad platform accounts',
  ),
  endpoint('campaigns', 'FACEBOOK', 'reach', REACH_DEFAULTS, 'Reach and frequency statistics of FACEBOOK campaigns'),
  endpoint('ads', 'FACEBOOK', 'reach', REACH_DEFAULTS, 'Reach and frequency statistics of FACEBOOK ads'),
  endpoint(
    'adplatform-accounts',
    'GOOGLE_ADS',
    'impressionShare',
    SHARE_DEFAULTS,
    'Impression-share statistics of GOOGLE_ADS ad platform accounts, as Google reports them',
  ),
];

export const ENDPOINT_BY_PATH: ReadonlyMap<string, ReportEndpoint> = new Map(ENDPOINTS.map((e) => [e.path, e]));

/** The endpoints that offer a statistic, for errors that say where to ask instead. */
export function endpointsOffering(statistic: StatisticDefinition): string[] {
  return ENDPOINTS.filter((e) => e.statistics.includes(statistic)).map((e) => `/reporting/v0/${e.path}`);
}
