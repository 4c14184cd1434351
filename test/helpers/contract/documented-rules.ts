import { ENDPOINT_BY_PATH } from '../../../src/catalog/endpoints.js';
import { additiveSourceFor, FACT_SOURCES, type FactColumn } from '../../../src/catalog/fact-sources.js';
import { FACT_FILTER_FIELDS, SEGMENT_BY_NAME } from '../../../src/catalog/segments.js';
import { measuresOf, sourceOf, STATISTIC_BY_NAME } from '../../../src/catalog/statistics.js';
import { states, type JsonSchema, type Operation } from './openapi-document.js';

/**
 * What JSON Schema cannot say and the document says in words: rules that tie two parameters or
 * two members together, and 422s that depend on stored state or on the platform rather than on
 * the request. The valid generator applies a rule only where the document states it (in the
 * description it quotes), so a rule the service enforces but the document omits shows up as a
 * refused valid request; a valid request may get the 422s listed here.
 */

/** A request as generated, before it is put on the wire. */
export interface Draft {
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body?: unknown;
  contentType?: string;
  accept?: string;
}

export interface RuleContext {
  clientId: string;
}

const DAY_MS = 86_400_000;
const FIVE_YEARS_DAYS = 5 * 365;

export interface Rule {
  readonly name: string;
  appliesTo(op: Operation, draft: Draft): boolean;
  /** Where the document says so; the rule is applied only there. */
  stated(op: Operation): boolean;
  apply(draft: Draft, ctx: RuleContext, op: Operation): void;
}

/** Whether the request asks for CSV, NDJSON or Parquet (format= wins over Accept). */
function isExport(d: Draft): boolean {
  if (d.query.format !== undefined) return d.query.format !== 'json';
  return d.accept !== undefined && d.accept !== 'application/json';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The member object a body wraps (`{account: {...}}` -> the account), or the body itself. */
function members(body: unknown): Record<string, unknown> | undefined {
  if (!isObject(body)) return undefined;
  const values = Object.values(body);
  return values.length === 1 && isObject(values[0]) ? values[0] : body;
}

/** The schema of the first property named `name` anywhere in the request body. */
function bodyProperty(op: Operation, name: string): JsonSchema | undefined {
  const visit = (schema: JsonSchema | undefined): JsonSchema | undefined => {
    if (!schema) return undefined;
    if (schema.properties?.[name]) return schema.properties[name];
    for (const child of Object.values(schema.properties ?? {})) {
      const found = visit(child);
      if (found) return found;
    }
    return undefined;
  };
  return Object.values(op.requestBody?.content ?? {})
    .map((media) => visit(media.schema))
    .find((found) => found !== undefined);
}

/** Spec table 2.3 as the languageCode description lists it ("... 2.3 ...: zh: CN, HK; da: DK; ..."). */
function pairsFrom(description: string): Map<string, string[]> {
  const table = description.slice(description.indexOf(':', description.indexOf('2.3')) + 1);
  return new Map(
    table
      .split(';')
      .map((entry) => entry.trim().replace(/\.$/, ''))
      .filter((entry) => /^[a-z]{2}: /.test(entry))
      .map((entry) => [entry.slice(0, 2), entry.slice(4).split(', ')]),
  );
}

/** The days an endpoint keeps its figures, as its startDate description states them ("kept for N days"). */
function keptDays(op: Operation): number | undefined {
  const p = op.parameters.find((q) => q.name === 'startDate');
  const description = `${p?.description ?? ''} ${p?.schema.description ?? ''}`;
  const days = /kept for (\d+) days/.exec(description)?.[1];
  return days === undefined ? undefined : Number(days);
}

const listOf = (value: unknown): string[] =>
  value === undefined
    ? []
    : (Array.isArray(value) ? value.map(String) : String(value).split(',')).filter((v) => v !== '');

/**
 * The sources GET /reporting/v0/fields lists (src/catalog/fact-sources.ts, the same declarations):
 * a request is answerable when one source holds every column its segments, fact-row filters and
 * attribution windows touch and carries every statistic it names. A generated request that is
 * not loses its breakdowns, then DeviceType and NetworkType, then attributionWindows; a Hour
 * segment stays only for a range known to start within the 180 days hours are kept.
 */
function answerableBySources(d: Draft, op: Operation): void {
  const path = op.path.slice('/reporting/v0/'.length);
  const label = path.startsWith('accounts/campaign-labels/');
  const endpoint = ENDPOINT_BY_PATH.get(label ? 'accounts' : path);
  if (endpoint === undefined) return;
  const level = endpoint.level;
  const texts = [d.query.filter, d.query.sort, ...listOf(d.query.formulas)].map((t) => String(t ?? ''));
  const filterKeys = [...String(d.query.filter ?? '').matchAll(/segments\.(\w+)/g)].map((m) => m[1]!);
  const statistics = [
    ...listOf(d.query.statistics).map((n) => n.replace(/^statistics\./, '')),
    ...texts.flatMap((t) => [...t.matchAll(/statistics\.(\w+)/g)].map((m) => m[1]!)),
  ].flatMap((n) => (STATISTIC_BY_NAME.has(n) ? [STATISTIC_BY_NAME.get(n)!] : []));
  const answerable = (segments: readonly string[], attribution: boolean): boolean => {
    const columns = new Set<FactColumn>(['organization_id', 'day', 'adplatform_account_id']);
    if (level.factKey !== null) columns.add(level.factKey as FactColumn);
    if (label) columns.add('campaign_id');
    if (attribution) columns.add('attribution_part');
    for (const name of segments) for (const c of SEGMENT_BY_NAME.get(name)?.reads ?? []) columns.add(c);
    for (const key of filterKeys) {
      const column = FACT_FILTER_FIELDS.get(key)?.reads[0];
      if (column) columns.add(column);
    }
    const source = additiveSourceFor(level.factTable, columns, true, endpoint.platform);
    if (source === undefined) return false;
    return statistics.every((statistic) =>
      [...measuresOf(statistic)].every((m) => {
        if (sourceOf(m) === 'facts') return source.measures.includes(m);
        const extra = FACT_SOURCES.find((s) => s.kind === sourceOf(m))!;
        return [...columns].every((c) => c === 'attribution_part' || extra.grain.includes(c));
      }),
    );
  };
  let segments = listOf(d.query.segments);
  const first = new Date(Date.now() - 180 * DAY_MS).toISOString().slice(0, 10);
  const recent = typeof d.query.startDate === 'string' && d.query.startDate >= first && d.query.compare === undefined;
  if (!recent) segments = segments.filter((s) => s !== 'Hour' && s !== 'HourOfDay');
  const daily = FACT_SOURCES.find((s) => s.table === level.factTable)!;
  const attribution = d.query.attributionWindows !== undefined;
  if (!answerable(segments, attribution))
    segments = segments.filter((s) => SEGMENT_BY_NAME.get(s)?.reads.every((c) => daily.grain.includes(c)) ?? true);
  if (!answerable(segments, attribution)) segments = segments.filter((s) => s !== 'DeviceType' && s !== 'NetworkType');
  if (!answerable(segments, attribution)) delete d.query.attributionWindows;
  if (segments.length === 0) delete d.query.segments;
  else d.query.segments = segments.join(',');
  if (d.query.totals === 'segments' && segments.length === 0) d.query.totals = 'true';
}

export const RULES: readonly Rule[] = [
  {
    name: 'offset is a multiple of limit',
    appliesTo: (_op, d) => d.query.offset !== undefined,
    stated: (op) => states(op, 'offset', /multiple of `?limit/),
    apply: (d, _ctx, op) => {
      // An export without limit has limit 1000000000 (the offset description says so), so offset 0.
      d.query.offset =
        d.query.limit === undefined && isExport(d) && states(op, 'offset', /1000000000/)
          ? 0
          : Number(d.query.limit ?? 100) * (Number(d.query.offset) % 4);
    },
  },
  {
    name: 'dateRange is given instead of startDate and endDate, not with them',
    appliesTo: (_op, d) =>
      d.query.dateRange !== undefined && (d.query.startDate !== undefined || d.query.endDate !== undefined),
    stated: (op) => states(op, 'dateRange', /instead of startDate\/endDate \(with either of them: 400\)/),
    apply: (d) => {
      // Keep either side, so that both the presets and the date rules below are exercised.
      if (String(d.query.dateRange).length % 2 === 0) delete d.query.dateRange;
      else {
        delete d.query.startDate;
        delete d.query.endDate;
      }
    },
  },
  {
    name: 'endDate is not before startDate',
    appliesTo: (_op, d) => typeof d.query.startDate === 'string' && typeof d.query.endDate === 'string',
    stated: (op) => states(op, 'endDate', /not before startDate/),
    apply: (d) => {
      [d.query.startDate, d.query.endDate] = [String(d.query.startDate), String(d.query.endDate)].sort();
    },
  },
  {
    name: 'the range startDate..endDate (with their defaults) is under five years',
    appliesTo: (_op, d) => typeof d.query.startDate === 'string' || typeof d.query.endDate === 'string',
    stated: (op) => states(op, 'startDate', /five years/),
    apply: (d) => {
      const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
      const start = d.query.startDate as string | undefined;
      const end =
        (d.query.endDate as string | undefined) ?? (start !== undefined && start > yesterday ? start : yesterday);
      const sorted = [start ?? end, end].sort() as [string, string];
      let from = sorted[0];
      const to = sorted[1];
      if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= FIVE_YEARS_DAYS)
        from = new Date(Date.parse(to) - ((Date.parse(from) / DAY_MS) % 400) * DAY_MS).toISOString().slice(0, 10);
      if (start !== undefined) d.query.startDate = from;
      if (d.query.endDate !== undefined) d.query.endDate = to;
    },
  },
  {
    name: 'totals only with the JSON form',
    appliesTo: (_op, d) => [true, 'true', 'segments'].includes(d.query.totals as string) && isExport(d),
    stated: (op) => states(op, 'totals', /JSON only/),
    apply: (d) => {
      d.query.totals = false;
    },
  },
  {
    name: 'totals=segments needs segments',
    appliesTo: (_op, d) => d.query.totals === 'segments' && (d.query.segments === undefined || d.query.segments === ''),
    stated: (op) => states(op, 'totals', /needs segments/),
    apply: (d) => {
      d.query.totals = 'true';
    },
  },
  {
    name: 'compare: a range of real days; with a time segment both ranges need as many of its buckets',
    appliesTo: (_op, d) => typeof d.query.compare === 'string',
    stated: (op) => states(op, 'compare', /as many of its buckets/),
    apply: (d) => {
      const compare = String(d.query.compare);
      // A generated YYYY-MM-DD..YYYY-MM-DD names no real days as a rule: one that does, from its digits.
      if (compare.includes('..')) {
        const start = new Date(Date.UTC(2020, 0, 1) + (Number(compare.replace(/\D/g, '').slice(0, 6)) % 2000) * DAY_MS);
        const end = new Date(start.getTime() + (Number(compare.slice(-2).replace(/\D/g, '') || 0) % 90) * DAY_MS);
        d.query.compare = `${start.toISOString().slice(0, 10)}..${end.toISOString().slice(0, 10)}`;
      }
      const segments = String(d.query.segments ?? '').split(',');
      const timed = segments.filter((s) =>
        ['Day', 'Week', 'WeekSunday', 'Month', 'Quarter', 'Year', 'Hour'].includes(s),
      );
      // PREVIOUS_PERIOD always has as many days (and hours); other time buckets depend on where the ranges fall.
      if (timed.length > 0) {
        if (timed.every((s) => s === 'Day' || s === 'Hour')) d.query.compare = 'PREVIOUS_PERIOD';
        else delete d.query.compare;
      }
    },
  },
  {
    name: 'one fact source holds the segments, the fact-row filters, attributionWindows and the statistics; hours are kept 180 days',
    appliesTo: (op) => op.path.startsWith('/reporting/v0/') && op.parameters.some((p) => p.name === 'segments'),
    stated: (op) => states(op, 'segments', /A combination no source has: 400 segments_not_combinable/),
    apply: (d, _ctx, op) => answerableBySources(d, op),
  },
  {
    name: 'the range and the compared range start within the days the endpoint keeps (search terms)',
    appliesTo: () => true,
    stated: (op) => keptDays(op) !== undefined,
    apply: (d, _ctx, op) => {
      const days = keptDays(op)!;
      const first = new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
      const later = (day: string, n: number) => new Date(Date.parse(day) + n * DAY_MS).toISOString().slice(0, 10);
      // Presets of a quarter or a year may start before the first kept day; the others are shorter.
      if (typeof d.query.dateRange === 'string' && /QUARTER|YEAR/.test(d.query.dateRange))
        d.query.dateRange = 'LAST_30_DAYS';
      if (typeof d.query.startDate === 'string' && d.query.startDate < first) {
        d.query.startDate = first;
        if (typeof d.query.endDate === 'string' && d.query.endDate < first) d.query.endDate = first;
      }
      // Without startDate the range starts 29 days before endDate.
      if (d.query.startDate === undefined && typeof d.query.endDate === 'string' && later(d.query.endDate, -29) < first)
        d.query.endDate = later(first, 29);
      // Any comparison reaches further back than the range, out of the retention as often as not.
      delete d.query.compare;
    },
  },
  {
    name: 'client_id in the token form equals the authenticated client',
    appliesTo: (op, d) => op.path === '/token' && isObject(d.body) && d.body.client_id !== undefined,
    stated: (op) =>
      /client_id/.test(JSON.stringify(op.requestBody ?? {})) && /must equal/.test(JSON.stringify(op.requestBody ?? {})),
    apply: (d, ctx) => {
      (d.body as Record<string, unknown>).client_id = ctx.clientId;
    },
  },
  {
    name: 'languageCode and countryCode form a pair of spec table 2.3',
    appliesTo: (_op, d) =>
      typeof members(d.body)?.languageCode === 'string' && typeof members(d.body)?.countryCode === 'string',
    stated: (op) => pairsFrom(bodyProperty(op, 'languageCode')?.description ?? '').size > 0,
    apply: (d, _ctx, op) => {
      const account = members(d.body)!;
      const countries =
        pairsFrom(bodyProperty(op, 'languageCode')?.description ?? '').get(String(account.languageCode)) ?? [];
      if (countries.length > 0 && !countries.includes(String(account.countryCode)))
        account.countryCode = countries[String(account.countryCode).charCodeAt(0) % countries.length];
    },
  },
  {
    name: "a report job's query is the GET's query: its rules are the GET's, which its schema leaves to words",
    appliesTo: (_op, d) => isObject(members(d.body)) && isObject(members(d.body)?.query),
    stated: (op) => /Validated exactly as the GET validates them/.test(JSON.stringify(op.requestBody ?? {})),
    apply: (d) => {
      // The GET operations exercise those rules; here a query the GET takes, one of two shapes.
      const job = members(d.body)!;
      job.query = Object.keys(job.query as object).length % 2 === 0 ? {} : { dateRange: 'LAST_7_DAYS' };
    },
  },
  {
    name: "a view's chart is a statistic of its endpoint or a formula of its query",
    appliesTo: (_op, d) => typeof members(d.body)?.chart === 'string',
    stated: (op) => /a statistic the endpoint offers/.test(JSON.stringify(op.requestBody ?? {})),
    apply: (d) => {
      // Every statistics endpoint offers clicks; a formula needs a query with formulas, which the rule above empties.
      const view = members(d.body)!;
      view.chart = String(view.chart).length % 2 === 0 ? 'clicks' : 'statistics.impressions';
    },
  },
  {
    name: 'a markup endDate is not before its startDate',
    appliesTo: (_op, d) =>
      typeof members(d.body)?.startDate === 'string' && typeof members(d.body)?.endDate === 'string',
    stated: (op) => /not before startDate/.test(JSON.stringify(op.requestBody ?? {})),
    apply: (d) => {
      const markup = members(d.body)!;
      const [from, to] = [String(markup.startDate), String(markup.endDate)].sort() as [string, string];
      markup.startDate = from;
      markup.endDate = to;
    },
  },
  {
    name: 'since is a nextCursor the service issued (opaque: a generated one is refused)',
    appliesTo: (_op, d) => d.query.since !== undefined,
    stated: (op) => states(op, 'since', /nextCursor` of an earlier call/),
    apply: (d) => {
      delete d.query.since;
    },
  },
];

/**
 * 422 detail codes a valid request may get, per operation: each depends on stored state or on
 * what the platform knows, as the operation's 422 description says.
 */
export const STATE_DEPENDENT_422: Readonly<Record<string, readonly string[]>> = {
  // The platform decides which ids exist and what this organization may see.
  linkPlatformAccount: ['invalid_format', 'unknown_at_platform', 'no_access', 'refused_by_platform'],
  listPlatformAccountsUnderMaster: ['no_access', 'unknown_at_platform', 'refused_by_platform'],
  listAvailablePlatformAccounts: ['no_access', 'refused_by_platform'],
  listAvailableCampaigns: ['no_access', 'unknown_at_platform', 'refused_by_platform'],
  // An Idempotency-Key remembered from an earlier request with another body.
  createPlatformAccount: ['reused'],
  importCampaign: ['reused'],
  copyCampaigns: ['reused', 'unknown', 'not_allowed', 'currency_mismatch'],
  createReportJob: ['reused'],
  // A patch is checked merged with what is stored.
  updateAccount: ['not_allowed'],
  updateAccountLabels: ['too_many'],
  updateCampaignLabels: ['too_many'],
  // Periods of one account must not overlap the stored ones.
  createMarkup: ['overlapping_period'],
  // DNS decides whether a webhook's host resolves, and to public addresses only.
  createWebhook: ['host_not_found', 'private_address'],
};
