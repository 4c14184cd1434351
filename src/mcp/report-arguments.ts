import * as z from 'zod';
import { ENDPOINTS } from '../catalog/endpoints.js';
import { DATE_PRESETS, MAX_LIMIT } from '../reporting/report-request.js';

/**
 * The reporting parameters as MCP tool arguments: the names and meanings of the REST query
 * (GET /reporting/v0/<endpoint>), lists as JSON arrays. The tools check only the shape; the
 * REST API validates the values, so a tool refuses exactly what the URL would, with the same
 * error code and message.
 */

/** The statistics endpoints, below /reporting/v0/. */
export const REPORT_ENDPOINT_PATHS = ENDPOINTS.map((e) => e.path) as [string, ...string[]];

/**
 * The most rows one tool answer carries: an agent reads them all, so more belong in a page
 * after page or a report job (start_export), never in one answer cut short.
 */
export const MCP_MAX_LIMIT = 1000;
export const MCP_DEFAULT_LIMIT = 100;

const list = (description: string) => z.array(z.string().min(1)).min(1).optional().describe(description);
export const DATE = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');

/** Parameters every report tool takes. */
export const reportParameters = {
  endpoint: z
    .enum(REPORT_ENDPOINT_PATHS)
    .describe(
      'The statistics endpoint below /reporting/v0/: one row per entity of its level (and segment bucket). describe_reporting lists what each offers.',
    ),
  campaignLabel: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'With endpoint "accounts" only: report accounts by the values of this campaign label (GET /reporting/v0/accounts/campaign-labels/name/<label>).',
    ),
  dateRange: z
    .enum(DATE_PRESETS)
    .optional()
    .describe(
      'A named range in UTC days instead of startDate/endDate; default LAST_30_DAYS (the 30 days ending yesterday).',
    ),
  startDate: DATE.optional().describe('The first day, YYYY-MM-DD (with endDate; not with dateRange).'),
  endDate: DATE.optional().describe('The last day, inclusive, YYYY-MM-DD.'),
  statistics: list('Statistics to return (e.g. ["clicks", "cost", "ctr"]); default: the endpoint\'s nine defaults.'),
  segments: list(
    'Breakdowns: time (Day, Week, Month, Quarter, Year, WeekSunday, Hour), DayOfWeek, DeviceType, NetworkType, HourOfDay, Age, Gender, Country, Region, PublisherPlatform, PlatformPosition, ConversionAction, as the endpoint offers them.',
  ),
  filter: z
    .string()
    .min(1)
    .max(4000)
    .optional()
    .describe(
      "One expression, e.g. \"statistics.clicks > 100 && contains(name, 'Brand')\": comparisons == != < <= > >=, && || !, x in [..], contains(x, 's'), startsWith, endsWith, x == null over statistics.<name>, formulas.<name>, fields, labels.<name>, segments.<key>.",
    ),
  sort: list('Sort keys, "-" for descending, e.g. ["-statistics.cost", "name"].'),
  formulas: z
    .array(z.string().min(1))
    .min(1)
    .max(20)
    .optional()
    .describe(
      'Computed columns, each "name:expression:Type" (Type Integer, Decimal, Money or Percentage), e.g. "cpa:statistics.cost / statistics.conversions:Money".',
    ),
  embed: list('Extra fields per row, as the endpoint offers: labels, customFields, images, specificFields.'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code in capitals')
    .optional()
    .describe(
      "Convert every row's money into this currency (otherwise each row keeps its own and totals in several currencies are null).",
    ),
  totals: z
    .enum(['false', 'true', 'segments'])
    .optional()
    .describe('"true": totals over the whole filtered result; "segments": also the totals of every segment bucket.'),
  attributionWindows: list(
    'FACEBOOK endpoints: the attribution windows of conversions (e.g. ["7d_click", "1d_view"]).',
  ),
  name: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('Rows whose name contains this text (endpoints whose name parameter is "name").'),
  text: z.string().min(1).max(255).optional().describe('keywords: keywords whose text contains this.'),
  searchTerm: z.string().min(1).max(255).optional().describe('search-terms: search terms containing this.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MCP_MAX_LIMIT)
    .optional()
    .describe(
      `Rows per answer, default ${MCP_DEFAULT_LIMIT}, at most ${MCP_MAX_LIMIT} (the REST API takes up to ${MAX_LIMIT}); more rows: the next page (offset) or start_export.`,
    ),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Zero-based index of the first row: 0 or a multiple of limit (page.nextOffset of the previous answer).'),
};

export const runReportArguments = z.object({
  ...reportParameters,
  compare: z
    .string()
    .optional()
    .describe(
      'Compare with PREVIOUS_PERIOD, PREVIOUS_YEAR or YYYY-MM-DD..YYYY-MM-DD: rows gain comparison and change.',
    ),
});
export type RunReportArguments = z.infer<typeof runReportArguments>;

export const comparePeriodsArguments = z.object({
  ...reportParameters,
  compare: z
    .string()
    .default('PREVIOUS_PERIOD')
    .describe(
      'The compared range: PREVIOUS_PERIOD (as many days, ending the day before the start; the default), PREVIOUS_YEAR (both ends a calendar year earlier) or YYYY-MM-DD..YYYY-MM-DD.',
    ),
});

/** Members that are not query parameters (format: a report job's own member). */
const NOT_QUERY = new Set(['endpoint', 'campaignLabel', 'format']);
/** Comma lists in the URL; formulas repeat the parameter instead (a formula may hold commas). */
const COMMA_LISTS = new Set(['statistics', 'segments', 'sort', 'embed', 'attributionWindows']);

/**
 * The query parameters of a report's arguments, values as in the URL: a comma list as one text,
 * formulas as a list (the parameter repeated). A report job's `query` is this as it is.
 */
export function queryValues(args: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
  const values: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || NOT_QUERY.has(name)) continue;
    if (Array.isArray(value)) values[name] = COMMA_LISTS.has(name) ? value.join(',') : value.map(String);
    else values[name] = String(value);
  }
  return values;
}

/** The REST path of a report's arguments. */
export function reportPath(args: { endpoint: string; campaignLabel?: string | undefined }): string {
  if (args.campaignLabel === undefined) return `/reporting/v0/${args.endpoint}`;
  return `/reporting/v0/accounts/campaign-labels/name/${encodeURIComponent(args.campaignLabel)}`;
}

/** The REST query of a report's arguments, in the order the schema lists them; limit defaults to MCP_DEFAULT_LIMIT. */
export function reportQuery(args: Readonly<Record<string, unknown>>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(queryValues({ ...args, limit: args.limit ?? MCP_DEFAULT_LIMIT })))
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, item);
  return query;
}
