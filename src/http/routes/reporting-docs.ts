import { z } from '@hono/zod-openapi';
import type { ReportEndpoint } from '../../catalog/endpoints.js';
import { FACT_SOURCE_BY_TABLE } from '../../catalog/fact-sources.js';
import type { LevelDefinition } from '../../catalog/levels.js';
import type { SegmentDefinition } from '../../catalog/segments.js';
import {
  ATTRIBUTION_WINDOWS,
  DEFAULT_ATTRIBUTION_WINDOWS,
  REMOVED_ATTRIBUTION_WINDOWS,
} from '../../catalog/attribution.js';
import type { StatisticDefinition } from '../../catalog/statistics.js';
import { AD_PLATFORM_TYPES, DEVICE_TYPES, NETWORK_TYPES } from '../../shared/ad-platforms.js';
import { LABEL_NAME } from '../../provisioning/labels.js';
import { EXPRESSION_LIMITS } from '../../reporting/report-request.js';
import {
  DATE_PRESET_DESCRIPTIONS,
  DATE_PRESETS,
  MAX_LIMIT,
  type REPORT_PARAMETERS,
} from '../../reporting/report-request.js';
import { supportedCurrencies } from '../../reference/fx-rates.js';

type ReportParameter = (typeof REPORT_PARAMETERS)[number];
import { commaListParameter, dateQuery, pagingQuery } from '../openapi-parameters.js';

/*
 * The reporting endpoints as the document shows them, generated from the catalogue (levels,
 * statistics, segments, embeds), so the document cannot drift from what the planner accepts.
 * The routes parse their query by hand; these schemas are documentation.
 */

/** Stable operationIds and row component names, by endpoint path. */
const NAMES: Readonly<Record<string, { operationId: string; row: string }>> = {
  accounts: { operationId: 'getAccountStatistics', row: 'AccountReportRow' },
  'adplatform-accounts': { operationId: 'getPlatformAccountStatistics', row: 'AdPlatformAccountReportRow' },
  campaigns: { operationId: 'getCampaignStatistics', row: 'CampaignReportRow' },
  adgroups: { operationId: 'getAdGroupStatistics', row: 'AdGroupReportRow' },
  keywords: { operationId: 'getKeywordStatistics', row: 'KeywordReportRow' },
  ads: { operationId: 'getAdStatistics', row: 'AdReportRow' },
  'adplatform-accounts/facebook': {
    operationId: 'getFacebookPlatformAccountStatistics',
    row: 'FacebookAdPlatformAccountReportRow',
  },
  'campaigns/facebook': { operationId: 'getFacebookCampaignStatistics', row: 'FacebookCampaignReportRow' },
  'ads/facebook': { operationId: 'getFacebookAdStatistics', row: 'FacebookAdReportRow' },
  'search-terms': { operationId: 'getSearchTermStatistics', row: 'SearchTermReportRow' },
  'adplatform-accounts/google-ads': {
    operationId: 'getGoogleAdsPlatformAccountStatistics',
    row: 'GoogleAdsAdPlatformAccountReportRow',
  },
};

export function operationIdOf(endpoint: ReportEndpoint): string {
  const names = NAMES[endpoint.path];
  if (!names) throw new Error(`no operationId for /reporting/v0/${endpoint.path}`);
  return names.operationId;
}

export const DAYS_OF_WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

const SEGMENT_VALUES: Readonly<Record<SegmentDefinition['key'], z.ZodType>> = {
  day: z.string().openapi({ format: 'date' }),
  week: z.string().openapi({ format: 'date', description: 'The Monday of the ISO week.' }),
  month: z.string().openapi({ pattern: '^\\d{4}-\\d{2}$' }),
  year: z.number().int(),
  dayOfWeek: z.enum(DAYS_OF_WEEK),
  deviceType: z.enum(DEVICE_TYPES),
  quarter: z.string().openapi({ pattern: '^\\d{4}-Q[1-4]$' }),
  networkType: z.enum(NETWORK_TYPES),
  weekSunday: z.string().openapi({ format: 'date', description: 'The Sunday the week starts on.' }),
  hour: z.string().openapi({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:00$' }),
  hourOfDay: z.number().int().min(0).max(23),
  age: z.string(),
  gender: z.string(),
  publisherPlatform: z.string(),
  platformPosition: z.string(),
  country: z.string().openapi({ pattern: '^[A-Z]{2}$' }),
  region: z.string(),
  conversionAction: z.string(),
};

/** A statistic's value: ratios are null over a zero denominator (supplement 5). */
function statisticValue(statistic: StatisticDefinition): z.ZodType {
  const value = statistic.type === 'Integer' ? z.number().int() : z.number();
  return (statistic.type === 'Ratio' ? value.nullable() : value).openapi({
    description: `${statistic.type}: ${statistic.description}`,
  });
}

function statisticsObject(endpoint: ReportEndpoint) {
  return z
    .object(Object.fromEntries(endpoint.statistics.map((s) => [s.name, statisticValue(s).optional()])))
    .openapi({ description: 'The requested statistics (default: see GET /reporting/v0/fields).' });
}

/** A row key's value; ids are integers, the platform kind an enum, the rest text. */
function rowKeyValue(level: LevelDefinition, key: string): z.ZodType {
  if (key === 'adPlatformType' || key === 'adPlatformAccountType') return z.enum(AD_PLATFORM_TYPES);
  const field = level.fields.find((f) => f.name === key);
  return field?.type === 'number' ? z.number().int() : z.string();
}

/** The JSON row of one endpoint (component `<Level>ReportRow`). */
export function reportRowSchema(endpoint: ReportEndpoint, campaignLabel = false) {
  const level = endpoint.level;
  const embeds = new Set(level.embeds);
  const shape: Record<string, z.ZodType> = Object.fromEntries(
    level.rowKeys.map((key) => [key, rowKeyValue(level, key)]),
  );
  if (campaignLabel) shape.campaignLabel = z.object({ name: z.string(), value: z.string() });
  shape.segments = z
    .object(Object.fromEntries(endpoint.segments.map((s) => [s.key, SEGMENT_VALUES[s.key].optional()])))
    .optional()
    .openapi({ description: 'With segments= only: the bucket.' });
  shape.statistics = statisticsObject(endpoint);
  shape.formulas = z
    .record(z.string(), z.number().nullable())
    .optional()
    .openapi({ description: 'With formulas= only: name -> value (null over a zero denominator).' });
  shape.comparison = z
    .object({
      statistics: statisticsObject(endpoint),
      formulas: z.record(z.string(), z.number().nullable()).optional(),
    })
    .optional()
    .openapi({
      description:
        'With compare= only: the same statistics and formulas over the compared range, for the paired bucket (time buckets by position, other segments by value).',
    });
  shape.change = z
    .object({
      statistics: z.record(z.string(), z.number().nullable()),
      formulas: z.record(z.string(), z.number().nullable()).optional(),
    })
    .optional()
    .openapi({
      description:
        'With compare= only: (current - compared) / compared of each statistic and formula; null when compared is 0 or null.',
    });
  if (embeds.has('labels'))
    shape.labels = z.record(z.string(), z.string()).optional().openapi({ description: 'With embed=labels only.' });
  if (embeds.has('customFields')) {
    shape.customFields = z
      .object(
        Object.fromEntries(
          Array.from({ length: 30 }, (_, i) => [
            `field${i + 1}`,
            i < 20 ? z.string().nullable() : z.number().nullable(),
          ]),
        ),
      )
      .optional()
      .openapi({ description: 'With embed=customFields only.' });
  }
  if (embeds.has('images'))
    shape.images = z.array(z.string()).optional().openapi({ description: 'With embed=images only.' });
  if (embeds.has('specificFields'))
    shape.specificFields = z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .openapi({ description: 'With embed=specificFields only; null for ads of other platforms than FACEBOOK.' });
  const name = campaignLabel ? 'AccountCampaignLabelReportRow' : NAMES[endpoint.path]!.row;
  return z.object(shape).openapi(name);
}

export function totalsSchema(endpoint: ReportEndpoint) {
  // Money totals over rows in several currencies are null (no conversion asked): the money statistics are nullable here.
  const statistics = Object.fromEntries(
    endpoint.statistics.map((s) => [
      s.name,
      (s.type === 'Money' ? statisticValue(s).nullable() : statisticValue(s)).optional(),
    ]),
  );
  // A formula's total: the formula over the summed sums (its names may be statistic names, so apart).
  const formulas = z.record(z.string(), z.number().nullable()).optional().openapi({
    description:
      'With formulas= only: name -> the formula over the summed sums, as a ratio statistic is (null over a zero denominator, and when it reads money over rows in several currencies).',
  });
  const changes = Object.fromEntries(endpoint.statistics.map((s) => [s.name, z.number().nullable().optional()]));
  return z
    .object(statistics)
    .extend({
      currency: z.string().nullable().openapi({
        description:
          'The currency of the money totals; null when the rows are in several (money totals are null then, see warnings) or there are none.',
      }),
      formulas,
      comparison: z
        .object(statistics)
        .extend({ formulas })
        .optional()
        .openapi({ description: 'With compare= only: the same over the compared range.' }),
      change: z.object(changes).extend({ formulas }).optional().openapi({
        description: 'With compare= only: (current - compared) / compared; null when compared is 0 or null.',
      }),
    })
    .optional()
    .openapi({
      description:
        'With totals=true or totals=segments only: the statistics over the whole filtered result (ratios of the summed sums), and the formulas over the same sums.',
    });
}

/** `totals=segments`: the totals of every segment bucket of the whole filtered result. */
export function segmentTotalsSchema(endpoint: ReportEndpoint) {
  const bucket = z
    .object(Object.fromEntries(endpoint.segments.map((s) => [s.key, SEGMENT_VALUES[s.key].optional()])))
    .openapi({ description: 'The bucket: the values of the requested segments.' });
  return z
    .array(totalsSchema(endpoint).unwrap().extend({ segments: bucket }))
    .optional()
    .openapi({
      description:
        'With totals=segments only: one entry per bucket (the combination of the requested segments) of the whole filtered result, all pages, in segment order; statistics of the summed sums, reach deduplicated per bucket, formulas over the same sums.',
    });
}

/** What a report says beside its rows: mixed currencies, estimated rates, incomplete data, a sort by money of several currencies, unknown labels. */
export const WARNINGS = z
  .array(
    z
      .object({
        code: z
          .enum(['mixed_currencies', 'estimated_fx_rates', 'incomplete_data', 'mixed_currency_sort', 'unknown_labels'])
          .openapi({
            description:
              'mixed_currencies: totals over rows in several currencies (their money is null). estimated_fx_rates: money converted at estimated rates. incomplete_data: figures not final, or a platform account never synced. mixed_currency_sort: rows sorted by money in their own currencies, several of them, without currency=. unknown_labels: the filter names labels no entity of the organization has.',
          }),
        message: z.string(),
        currencies: z.array(z.string()).optional().openapi({
          description:
            'mixed_currencies, estimated_fx_rates, mixed_currency_sort: the currencies concerned (mixed_currency_sort: of the rows sorted).',
        }),
        sortKeys: z
          .array(z.string())
          .optional()
          .openapi({ description: 'mixed_currency_sort: the sort keys in a currency, as sort= names them.' }),
        labels: z.array(z.string()).optional().openapi({
          description:
            'unknown_labels: the label names of the filter (labels.<name>) that no entity of the level (accounts or campaigns) in the organization has.',
        }),
        firstDay: z.string().openapi({ format: 'date' }).optional(),
        lastDay: z.string().openapi({ format: 'date' }).optional(),
        completeThrough: z.string().nullable().optional().openapi({
          format: 'date',
          description:
            'incomplete_data: meta.freshness.completeThrough, the complete day of the synced platform accounts (null: none of them was ever synced).',
        }),
        platformAccountCount: z.number().int().optional().openapi({
          description:
            'incomplete_data: how many platform accounts of the report may still change within the range (those never synced included).',
        }),
        platformAccountIds: z
          .array(z.number().int())
          .optional()
          .openapi({ description: 'incomplete_data: their ids, the first 100 by id.' }),
        neverSyncedCount: z.number().int().optional().openapi({
          description:
            'incomplete_data: how many platform accounts of the report were never synced (the report has no figures of them).',
        }),
        neverSyncedIds: z
          .array(z.number().int())
          .optional()
          .openapi({ description: 'incomplete_data: their ids, the first 100 by id.' }),
      })
      .openapi('ReportWarning'),
  )
  .optional()
  .openapi({ description: 'Only when there is something to say.' });

/** `meta` of every JSON report body (issue 23): how complete its data is. */
export const META = z
  .object({
    freshness: z.object({
      completeThrough: z.string().nullable().openapi({
        format: 'date',
        description:
          "The last day for which every synced platform account of the report has final figures (as X-Data-Complete-Through); an account never synced has none and is named by the incomplete_data warning. null when none of them was ever synced, or the report has no platform account (its entities' platform accounts after the entity filters; statistic filters do not narrow them).",
      }),
      platformAccounts: z.array(
        z
          .object({
            id: z.number().int(),
            adPlatformType: z.enum(AD_PLATFORM_TYPES),
            syncedThrough: z
              .string()
              .nullable()
              .openapi({ format: 'date', description: 'The last day synced; null: never synced.' }),
            lastSyncedAt: z.string().nullable().openapi({
              format: 'date-time',
              description: 'When the last successful sync ended (generated data: when generated).',
            }),
            completeThrough: z.string().nullable().openapi({
              format: 'date',
              description:
                "The last synced day fetched at least the platform's conversion lag after it ended (14 days in the sandbox); generated data: syncedThrough.",
            }),
            backfillRunning: z
              .boolean()
              .openapi({ description: 'A statistics sync (SYNC_STATISTICS job) of it is queued or running.' }),
          })
          .openapi('PlatformAccountFreshness'),
      ),
    }),
  })
  .openapi('ReportMeta', { description: 'Always present, the last member of the body.' });

/*
 * Expression parameters (filter, sort, formulas) have a grammar no JSON Schema pattern captures.
 * Their descriptions state it and their parameter `examples` are valid on the endpoint they are
 * documented for (the contract test sends them as its valid values).
 */
function examples(values: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { value }]));
}

function filterExamples(endpoint: ReportEndpoint): Record<string, string> {
  const level = endpoint.level;
  const nameField = level.nameParameter;
  const out: Record<string, string> = {
    threshold: 'statistics.clicks > 10',
    range: 'statistics.cost >= 1 && statistics.cost < 500',
    text: `contains(${nameField}, 'a') || startsWith(${nameField}, 'B')`,
    ids: 'id in [1, 2, 3]',
    device: "segments.deviceType == 'MOBILE'",
  };
  if (level.fields.some((f) => f.name === 'adPlatformType')) out.platform = "adPlatformType == 'GOOGLE_ADS'";
  if (level.platformAccountColumn) out.account = 'accountId in [1, 2]';
  if (level.labels) out.label = "labels.tier == 'gold' || labels.tier == null";
  if (level.customFields) out.customField = 'customFields.field21 > 5';
  if (endpoint.platform === 'FACEBOOK') out.reach = 'statistics.reach > 100';
  if (endpoint.platform === 'GOOGLE_ADS') out.share = 'statistics.searchImpressionShare < 0.5';
  return out;
}

function sortExamples(endpoint: ReportEndpoint): Record<string, string> {
  const level = endpoint.level;
  return {
    cost: '-statistics.cost',
    name: `${level.nameParameter},-id`,
    clicks: '-statistics.clicks,statistics.ctr',
    ...(level.labels ? { label: 'labels.tier,-statistics.cost' } : {}),
  };
}

const FORMULA_EXAMPLES = {
  cpa: ['cpa:statistics.cost / statistics.conversions:Money'],
  rounded: ['ctrPct:round(100 * statistics.clicks / max(statistics.impressions, 1), 2):Decimal'],
  two: [
    'margin:statistics.conversionValue - statistics.cost:Money,share:statistics.clicks / statistics.impressions:Percentage',
    'big:if(statistics.clicks > 100, 1, 0):Integer',
  ],
};

const FILTER_GRAMMAR = `One expression: comparisons \`== != < <= > >=\`, \`&&\`/\`and\`, \`||\`/\`or\`, \`!\`/\`not\`, parentheses, \`x in [..]\`, \`contains(x, 's')\`, \`startsWith\`, \`endsWith\`, \`x == null\`; operands statistics.<name> (of this endpoint), formulas.<name> (of this request), the level's fields, labels.<name> and customFields.field<N> where the level has them, segments.<key> of a requested segment, and on fact rows the column segments (segments.deviceType, segments.networkType, segments.hourOfDay, segments.age, ...: only joined with && to the rest); string and number literals, null. At most ${EXPRESSION_LIMITS.maxLength} characters, depth ${EXPRESSION_LIMITS.maxDepth}, ${EXPRESSION_LIMITS.maxNodes} nodes. Anything else: 400 invalid_parameter naming the position and the token.`;

/** The query parameters of one statistics endpoint. */
export function reportQuerySchema(endpoint: ReportEndpoint) {
  const level = endpoint.level;
  const names = endpoint.statistics.map((s) => s.name);
  const sortFields = level.fields.map((f) => f.name).join(', ');
  const fields = level.platformAccountColumn
    ? `${sortFields}, accountId (==, != and in only: the accounts the platform account is linked to)`
    : sortFields;
  // An endpoint whose facts are kept for a while only (search terms): said where the dates are, and
  // no fixed day as their example or compare's, which would fall out of the retention.
  const retention = FACT_SOURCE_BY_TABLE.get(level.factTable)?.retentionDays;
  const kept =
    retention === undefined
      ? ''
      : ` The figures here are kept for ${retention} days: a range (or compared range) that starts before today (UTC) minus ${retention} days is a 400 outside_retention.`;
  const dateExample = retention === undefined ? '2026-01-31' : null;
  // Typed by REPORT_PARAMETERS: a parameter the parser learns must be documented here to compile.
  const documented: Record<ReportParameter, z.ZodType | undefined> = {
    startDate: dateQuery(
      `First day, inclusive. Default: 29 days before endDate. The range, defaults included, must be under five years (otherwise 400). Not with dateRange.${kept}`,
      dateExample,
    ),
    endDate: dateQuery(
      'Last day, inclusive; not before startDate, under five years after it (otherwise 400). Default: yesterday (UTC), or startDate when that is later. Not with dateRange.',
      dateExample,
    ),
    dateRange: z
      .string()
      .optional()
      .openapi({
        type: 'string',
        enum: [...DATE_PRESETS],
        description: `A named range instead of startDate/endDate (with either of them: 400), in UTC days: ${DATE_PRESETS.map((p) => `${p} (${DATE_PRESET_DESCRIPTIONS[p]})`).join(', ')}. Weeks are ISO weeks. The resolved range is in X-Start-Date and X-End-Date.`,
      }),
    statistics: commaListParameter(
      { type: 'string', enum: [...names, ...names.map((n) => `statistics.${n}`)] },
      {
        description: `Statistics to return, \`statistics.\` prefix optional; default ${endpoint.defaultStatistics.map((s) => s.name).join(', ')}. A statistic another endpoint offers: 400 naming where it is.`,
      },
    ),
    segments: commaListParameter(
      { type: 'string', enum: endpoint.segments.map((s) => s.name) },
      {
        description: `Breakdowns: ${endpoint.segments.map((s) => `${s.name} (${s.description})`).join(', ')}. Rows then come per active bucket. The time segments combine with each other and with one breakdown (DeviceType and NetworkType, or hours, or Age and Gender, or placement, or geography, or ConversionAction); GET /reporting/v0/fields lists the sources, what they combine and which statistics each carries. A combination no source has: 400 segments_not_combinable.`,
      },
    ),
    filter: z
      .string()
      .optional()
      .openapi({
        maxLength: EXPRESSION_LIMITS.maxLength,
        description: `${FILTER_GRAMMAR} Fields here: ${fields}.`,
        param: { examples: examples(filterExamples(endpoint)) },
      }),
    sort: z
      .string()
      .optional()
      .openapi({
        description: `Comma list of keys, \`-\` for descending: statistics.<name>, formulas.<name> of this request, ${sortFields}${level.labels ? ', labels.<name>' : ''}${level.customFields ? ', customFields.field<N>' : ''}, segments.<key> of a requested segment. Nulls last; ties by segments, then id. An unknown key: 400 naming its position. The parameter may repeat (\`sort=a&sort=-b\` is \`sort=a,-b\`; positions count in the values joined with commas).`,
        param: { examples: examples(sortExamples(endpoint)) },
      }),
    formulas: z
      .string()
      .optional()
      .openapi({
        type: 'array',
        items: { type: 'string' },
        maxItems: 20,
        description:
          '`name:expression:Type`, several separated by commas outside parentheses, or the parameter repeated; at most 20 in all. name: a letter, then up to 63 letters, digits or _ (unique); Type: Integer, Decimal, Money, Percentage; expression: arithmetic over statistics.<name> of this endpoint and numbers with min, max, abs, round, if. Anything else: 400 naming the position.',
        param: { style: 'form', explode: true, examples: examples(FORMULA_EXAMPLES) },
      }),
    ...pagingQuery(MAX_LIMIT, {
      limit:
        ' An export (format csv, ndjson, parquet) takes 1-1000000000 and without limit and offset is the whole result.',
      offset: ' An export without limit has limit 1000000000, so its offset can only be 0.',
    }),
    totals: z
      .string()
      .optional()
      .openapi({
        type: 'string',
        enum: ['false', 'true', 'segments'],
        default: 'false',
        description:
          'true adds `totals`: the statistics over the whole filtered result; segments adds `segmentTotals` too: the totals of every segment bucket (needs segments). JSON only: with an export format it is a 400.',
      }),
    compare: z
      .string()
      .optional()
      .openapi({
        type: 'string',
        pattern: '^(PREVIOUS_PERIOD|PREVIOUS_YEAR|\\d{4}-\\d{2}-\\d{2}\\.\\.\\d{4}-\\d{2}-\\d{2})$',
        description:
          'Compare with another range: PREVIOUS_PERIOD (as many days, ending the day before the start), PREVIOUS_YEAR (both ends a calendar year earlier) or YYYY-MM-DD..YYYY-MM-DD. Rows (and totals) gain `comparison` (the same statistics and formulas over that range) and `change` ((current - compared) / compared). Rows pair by entity; time segments (Day, Week, Month, Quarter, Year) by position (the i-th Day with the i-th Day), so with one both ranges need as many of its buckets (otherwise 400); DayOfWeek, DeviceType and NetworkType by value. filter and sort accept comparison.statistics.<name>, change.statistics.<name>, comparison.formulas.<name>, change.formulas.<name>.',
        param: {
          examples:
            retention === undefined
              ? {
                  previousPeriod: { value: 'PREVIOUS_PERIOD' },
                  previousYear: { value: 'PREVIOUS_YEAR' },
                  range: { value: '2026-09-01..2026-09-30' },
                }
              : { previousPeriod: { value: 'PREVIOUS_PERIOD' } },
        },
      }),
    format: z
      .string()
      .optional()
      .openapi({
        type: 'string',
        enum: ['json', 'csv', 'ndjson', 'parquet'],
        description:
          'The response type; wins over Accept. csv, ndjson and parquet stream the whole result (or the asked page) as an attachment.',
      }),
    currency: z
      .string()
      .optional()
      .openapi({
        type: 'string',
        enum: [...supportedCurrencies()].sort(),
        description:
          "Convert every money statistic and money formula per day (at that day's reference rate) into this ISO 4217 currency; rows and totals then carry it. Without it, rows keep their own currency and totals over several currencies have null money.",
      }),
    // A level without embeds refuses every value, so the document leaves the parameter out.
    embed:
      level.embeds.length === 0
        ? undefined
        : commaListParameter(
            { type: 'string', enum: [...level.embeds] },
            { description: `Also return: ${level.embeds.join(', ')}.` },
          ),
    // The FACEBOOK endpoints of campaigns and platform accounts only.
    attributionWindows: !endpoint.attributionWindows
      ? undefined
      : commaListParameter(
          { type: 'string', enum: Object.keys(ATTRIBUTION_WINDOWS) },
          {
            description: `Count conversions (and what is computed from them) in these Meta attribution windows instead of the default ${DEFAULT_ATTRIBUTION_WINDOWS.join(',')}: ${Object.keys(ATTRIBUTION_WINDOWS).join(', ')} (clicks nest: 28d_click includes 7d_click and 1d_click); each conversion counts once. ${Object.keys(REMOVED_ATTRIBUTION_WINDOWS).join(' and ')}: 400, Meta stopped returning them on ${Object.values(REMOVED_ATTRIBUTION_WINDOWS)[0]}. Answered per campaign day, with the time segments (a breakdown or DeviceType with it: 400 segments_not_combinable).`,
          },
        ),
  };
  const shape = Object.fromEntries(
    Object.entries(documented).filter((entry): entry is [string, z.ZodType] => entry[1] !== undefined),
  );
  shape[level.nameParameter] = z
    .string()
    .optional()
    .openapi({
      minLength: 1,
      maxLength: 255,
      description: `Exact ${level.nameParameter}; \`*\` matches any run of characters.`,
    });
  return z.object(shape);
}

/** The label name of /accounts/campaign-labels/name/{name}. */
export const CAMPAIGN_LABEL_NAME = z.string().openapi({
  param: { name: 'name', in: 'path' },
  pattern: LABEL_NAME.source,
  description: 'A campaign label name, or campaignGroup for the campaign group (otherwise 400).',
  example: 'campaignGroup',
});
