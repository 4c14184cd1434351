import { ENDPOINT_BY_PATH } from '../../src/catalog/endpoints.js';
import { LEVEL_BY_PATH, type LevelPath } from '../../src/catalog/levels.js';
import { SEGMENT_BY_NAME, SEGMENTS } from '../../src/catalog/segments.js';
import { addDays, encodeQuery, type QueryInput } from './reporting-fixture.js';

/**
 * The engine-parity corpus (issue 22 item 5): report requests made programmatically from the
 * catalog (endpoints, statistics, segments, fields) and from sample rows of the data. Each is
 * sent to a DuckDB and a ClickHouse service over copies of one generated database, and the
 * answers must be equal. `buildCorpus` needs only the dates, so the suite names a test per
 * request when it collects them; `sampleFilterRequests` needs an endpoint's rows, so it is built
 * inside that endpoint's test.
 */
export interface ParityRequest {
  /** Path and query as sent (for messages and KNOWN_DIFFERENCES). */
  readonly key: string;
  /** Index into the fixture's organizations. */
  readonly org: number;
  /** Below /reporting/v0. */
  readonly path: string;
  readonly query: QueryInput;
  readonly format: 'json' | 'csv' | 'ndjson' | 'parquet';
}

export interface CorpusContext {
  /** The generated data's first and last day. */
  readonly from: string;
  readonly to: string;
  /** Days copied into the ISO-week / year edge (2024-12-23 .. 2025-01-05). */
  readonly edgeFrom: string;
  readonly edgeTo: string;
  /** Currencies whose rates are missing on some days: one only asked for, one of platform accounts. */
  readonly missingFx: { readonly target: string; readonly source: string };
  /** The services read the aggregate tables (undefined: true): without them, no request that reads a breakdown or search terms (the same tables either way). */
  readonly rollups?: boolean;
}

/** The statistics endpoints: the six levels, FACEBOOK reach, Google Ads shares, campaign labels. */
export const STAT_ENDPOINTS = [
  'accounts',
  'adplatform-accounts',
  'campaigns',
  'adgroups',
  'keywords',
  'ads',
  'adplatform-accounts/facebook',
  'campaigns/facebook',
  'ads/facebook',
  'adplatform-accounts/google-ads',
  'accounts/campaign-labels/name/team',
  'accounts/campaign-labels/name/campaignGroup',
] as const;

function catalogOf(path: string) {
  const base = path.startsWith('accounts/campaign-labels') ? 'accounts' : path;
  const endpoint = ENDPOINT_BY_PATH.get(base)!;
  return { endpoint, level: LEVEL_BY_PATH.get(endpoint.level.path as LevelPath)! };
}

const quote = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** A list of requests and its `add`: every fourth to the second organization, none twice. */
function requestList() {
  const out: ParityRequest[] = [];
  const seen = new Set<string>();
  const add = (path: string, query: QueryInput, org = out.length % 4 === 3 ? 1 : 0) => {
    const format = (query.format as ParityRequest['format'] | undefined) ?? 'json';
    const key = `${path}?${encodeQuery(query)}#org${org}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ key, org, path, query, format });
  };
  return { out, add };
}

/** Segments, statistics and filters to send with a filter (a rotating share per endpoint). */
function filterRequests(
  add: (path: string, query: QueryInput) => void,
  path: string,
  range: QueryInput,
  filters: readonly string[],
): void {
  filters.forEach((filter, i) => {
    const segments = i % 3 === 0 ? 'Month' : i % 3 === 1 ? undefined : 'DeviceType';
    add(path, { ...range, filter, segments, statistics: 'impressions,clicks,cost,ctr', totals: i % 2 === 0 });
  });
}

/**
 * Filters on the values of an endpoint's fields, taken from some of its JSON rows (full range,
 * organization 0): ==, contains, startsWith, endsWith and in on strings, >= and in on numbers.
 */
export function sampleFilterRequests(
  ctx: Pick<CorpusContext, 'from' | 'to'>,
  path: (typeof STAT_ENDPOINTS)[number],
  sample: ReadonlyArray<Record<string, unknown>>,
): ParityRequest[] {
  const { level } = catalogOf(path);
  const e = STAT_ENDPOINTS.indexOf(path);
  const fieldFilters: string[] = [];
  for (const f of level.fields) {
    const values = [...new Set(sample.map((r) => r[f.name]).filter((v) => v !== null && v !== undefined))];
    if (f.type === 'number') {
      const nums = values.map(Number).sort((a, b) => a - b);
      if (nums.length > 0)
        fieldFilters.push(
          `${f.name} >= ${nums[Math.floor(nums.length / 2)]}`,
          `${f.name} in [${nums.slice(0, 3).join(', ')}]`,
        );
    } else {
      const s = values.map(String).sort()[0];
      if (s !== undefined)
        fieldFilters.push(
          `${f.name} == ${quote(s)}`,
          `contains(${f.name}, ${quote(s.slice(1, 4))})`,
          `startsWith(${f.name}, ${quote(s.slice(0, 2))}) || endsWith(${f.name}, ${quote(s.slice(-2))})`,
          `${f.name} in [${values.map(String).sort().slice(0, 3).map(quote).join(', ')}]`,
        );
    }
  }
  const { out, add } = requestList();
  filterRequests(
    add,
    path,
    { startDate: ctx.from, endDate: ctx.to },
    fieldFilters.filter((_, k) => (k + e) % 3 === 0),
  );
  return out;
}

/** The requests that need no rows of the data: the same list for the same dates every run. */
export function buildCorpus(ctx: CorpusContext): ParityRequest[] {
  const { out, add } = requestList();
  const range = { startDate: ctx.from, endDate: ctx.to };
  // The segments of issue 22; those added later are asked at the end (appended: the earlier
  // requests keep their place and organization).
  const segmentNames = SEGMENTS.map((s) => s.name).filter(
    (name) => !ISSUE_23_SEGMENTS.includes(name) && !ISSUE_40_SEGMENTS.includes(name),
  );

  // Every pair of segments on the endpoints whose figures come from different places: ad facts,
  // keyword facts, accounts (FX per day), reach runs, impression shares; single segments everywhere.
  const PAIRS_ON = new Set(['campaigns', 'keywords', 'accounts', 'ads/facebook', 'adplatform-accounts/google-ads']);
  const errors: QueryInput[] = [
    { statistics: 'clicsk' },
    { segments: 'Hour' },
    { filter: 'statistics.clicks >' },
    { startDate: ctx.to, endDate: ctx.from },
    { currency: 'usd' },
    { format: 'csv', totals: true },
    { limit: 10, offset: 15 },
    { sort: 'accountId' },
    { formulas: 'x:statistics.nope / 2:Money' },
    { limit: 0 },
  ];
  let rotation = 0;

  STAT_ENDPOINTS.forEach((path, e) => {
    const { endpoint, level } = catalogOf(path);
    const all = endpoint.statistics.map((s) => s.name).join(',');
    const ratios = ['impressions', 'clicks', 'cost', 'ctr', 'averageCpc', 'conversionRate', 'costPerConversion'];

    // Defaults, every statistic, totals, paging (offset past the end too).
    add(path, {});
    add(path, { ...range, statistics: all, totals: true, limit: 10000 });
    add(path, { ...range, statistics: all, totals: true, limit: 10000 }, 1);
    add(path, { ...range, limit: 7, offset: 21, segments: 'Day' });
    add(path, { ...range, limit: 100, offset: 100000 });

    // Every segment alone; every pair (and a reversed pair and a triple) where PAIRS_ON says.
    for (let i = 0; i < segmentNames.length; i++) {
      add(path, { ...range, segments: segmentNames[i], statistics: all, totals: i % 2 === 0, limit: 200 });
      if (!PAIRS_ON.has(path)) continue;
      for (let j = i + 1; j < segmentNames.length; j++)
        add(path, {
          ...range,
          segments: `${segmentNames[i]},${segmentNames[j]}`,
          statistics: ratios.join(','),
          limit: 300,
        });
    }
    if (path === 'campaigns') {
      add(path, { ...range, segments: 'DeviceType,Month', statistics: 'clicks,cost' });
      add(path, { ...range, segments: 'Year,Month,DayOfWeek', statistics: 'clicks,cost,ctr' });
    }

    // ISO weeks and the year boundary over the copied edge days (2024-12-30 is week 2025-W01).
    add(path, { startDate: '2024-12-29', endDate: '2025-01-05', segments: 'Week', statistics: all, totals: true });
    add(path, { startDate: ctx.edgeFrom, endDate: ctx.edgeTo, segments: 'Week,Year', statistics: 'clicks,cost' });
    if (e % 2 === 0 || path === 'campaigns')
      add(path, { startDate: ctx.edgeFrom, endDate: ctx.edgeTo, segments: 'Day,Week', statistics: 'clicks' });
    if (e % 2 === 0)
      add(path, {
        startDate: ctx.edgeFrom,
        endDate: ctx.to,
        segments: 'Year',
        statistics: 'clicks,cost,roas',
        totals: true,
        currency: 'USD',
      });

    // Sorts with ties (low-cardinality statistics), both ways, plus names, segments, nulls.
    const lowCard = endpoint.statistics.some((s) => s.name === 'calls') ? 'calls' : 'conversions';
    add(path, { ...range, statistics: `clicks,${lowCard}`, sort: `statistics.${lowCard}`, limit: 50 });
    add(path, { ...range, statistics: `clicks,${lowCard}`, sort: `-statistics.${lowCard}`, limit: 50 });
    if (e % 2 === 0)
      add(path, { startDate: ctx.to, endDate: ctx.to, statistics: 'clicks,ctr', sort: 'statistics.ctr', limit: 100 });
    add(path, {
      ...range,
      segments: 'DayOfWeek',
      statistics: `clicks,${lowCard}`,
      sort: `-statistics.${lowCard},-segments.dayOfWeek`,
      limit: 40,
    });
    if (e % 2 === 1) add(path, { ...range, sort: `-${level.nameParameter}`, limit: 30 });

    // Formulas: every type, functions, 7 / 2, division by zero (null), in filter and sort.
    add(path, {
      ...range,
      statistics: 'clicks,cost,conversions',
      formulas: [
        'cpa:statistics.cost / statistics.conversions:Money',
        'zero:statistics.clicks / 0:Decimal',
        'half:7 / 2:Decimal',
        'clicks2:statistics.clicks * 2 + 1:Integer',
        'share:if(statistics.impressions > 0, statistics.clicks / statistics.impressions, 0):Percentage',
        'mix:round(max(statistics.cost, 1) - min(statistics.clicks, 3) + abs(-2), 2):Decimal',
      ],
      sort: '-formulas.cpa',
      limit: 80,
    });
    if (e % 3 === 0)
      add(path, {
        ...range,
        segments: 'Month',
        statistics: 'clicks,cost',
        formulas: 'perClick:statistics.cost / statistics.clicks:Money',
        filter: 'formulas.perClick > 0.1 || formulas.perClick == null',
        sort: 'formulas.perClick',
        totals: true,
      });

    // Filters: numbers, and/or/not, in, null, strings (==, contains, startsWith, endsWith, in),
    // labels, custom fields, accountId; a rotating share of them per endpoint.
    const statFilters = [
      'statistics.clicks > 10',
      'statistics.clicks >= 0 && statistics.cost < 50',
      'statistics.clicks == 0 || statistics.ctr > 0.05',
      '!(statistics.impressions <= 100)',
      'not (statistics.conversions > 1) and statistics.cost != 0',
      'statistics.costPerConversion == null',
      'statistics.conversionRate > 0.01 or statistics.averageCpc < 0.5',
      '(statistics.clicks > 5 && statistics.cost > 1) || statistics.impressions in [0, 1, 2, 3]',
      "segments.deviceType == 'MOBILE'",
      "segments.deviceType in ['DESKTOP', 'TABLET']",
      "segments.networkType != 'SEARCH'",
    ];
    // Labels, custom fields and accountId (filters on the values of fields: sampleFilterRequests).
    const fixedFilters: string[] = [];
    if (level.labels) fixedFilters.push("labels.tier == 'gold' || labels.team == 'east'", 'labels.region == null');
    if (level.customFields) fixedFilters.push("customFields.field1 != 'x' && customFields.field21 > 0");
    if (level.platformAccountColumn !== undefined)
      fixedFilters.push('accountId == 1', 'accountId in [1, 2]', 'accountId != 1', 'accountId == null');
    if (path.startsWith('accounts/campaign-labels')) fixedFilters.push("startsWith(campaignLabel.value, 'e')");
    const filters = [
      ...[0, 1].map((k) => statFilters[(e * 2 + k) % statFilters.length]!),
      ...fixedFilters.filter((_, k) => (k + e) % 2 === 0),
    ];
    filterRequests(add, path, range, filters);

    // Currency: straight conversion, currencies with missing rates, the row currency filter.
    add(path, { ...range, currency: 'USD', statistics: all, totals: true });
    add(path, {
      ...range,
      currency: ctx.missingFx.target,
      segments: 'Day',
      statistics: 'clicks,cost,averageCpc',
      limit: 200,
    });
    add(path, {
      ...range,
      currency: 'EUR',
      segments: 'Day',
      filter: `currency == '${ctx.missingFx.source}'`,
      statistics: 'clicks,cost,costWithMarkup,averageCpc,roas',
      totals: true,
      limit: 300,
    });
    if (e % 2 === 0)
      add(path, {
        ...range,
        currency: 'CHF',
        filter: "currency == 'EUR' && statistics.cost > 0",
        sort: '-statistics.cost',
      });

    // Embeds.
    if (level.embeds.length > 0)
      add(path, { ...range, embed: level.embeds.join(','), statistics: 'clicks', limit: 200 });

    // Exports: CSV everywhere, NDJSON and Parquet in turn.
    add(path, { ...range, format: 'csv', segments: 'Week,DeviceType', statistics: all, currency: 'USD' });
    if (e % 2 === 0)
      add(path, { ...range, format: 'ndjson', segments: 'DayOfWeek', formulas: 'z:statistics.clicks / 0:Decimal' });
    else add(path, { ...range, format: 'parquet', segments: 'Month', statistics: all });
    if (e % 4 === 0) add(path, { ...range, format: 'csv', limit: 5, offset: 10, sort: '-statistics.clicks' });
    if (level.embeds.length > 0) add(path, { ...range, format: 'ndjson', embed: level.embeds.join(',') });

    // Bad input: the same 400 from both.
    for (let k = 0; k < 2; k++) add(path, { ...range, ...errors[rotation++ % errors.length]! });
  });

  // A label name that is none; the objective label.
  add('accounts/campaign-labels/name/nolabel', { startDate: ctx.from, endDate: ctx.to });
  add('accounts/campaign-labels/name/objective', {
    startDate: ctx.from,
    endDate: ctx.to,
    segments: 'Month',
    totals: true,
  });

  // Period comparison and totals per segment (issue 23): every endpoint, then the forms on campaigns.
  STAT_ENDPOINTS.forEach((path, e) => {
    const all = catalogOf(path)
      .endpoint.statistics.map((s) => s.name)
      .join(',');
    add(path, { ...range, compare: 'PREVIOUS_PERIOD', statistics: all, totals: true, limit: 200 });
    add(path, { ...range, segments: 'DeviceType', totals: 'segments', statistics: all, limit: 100 });
    if (e % 2 === 0)
      add(path, {
        ...range,
        compare: 'PREVIOUS_PERIOD',
        segments: 'Day',
        totals: 'segments',
        statistics: all,
        limit: 300,
      });
    else
      add(path, {
        ...range,
        compare: 'PREVIOUS_YEAR',
        segments: 'Month,DeviceType',
        totals: 'segments',
        statistics: all,
      });
  });
  const compared = { ...range, statistics: 'impressions,clicks,cost,ctr,averageCpc' };
  add('campaigns', {
    ...compared,
    compare: 'PREVIOUS_PERIOD',
    filter: 'change.statistics.clicks < 0',
    sort: '-change.statistics.cost',
  });
  add('campaigns', { ...compared, compare: 'PREVIOUS_PERIOD', sort: 'comparison.statistics.ctr', limit: 50 });
  add('campaigns', {
    ...compared,
    compare: `${ctx.edgeFrom}..${ctx.edgeTo}`,
    formulas: 'cpc2:statistics.cost / statistics.clicks:Money',
    filter: 'comparison.formulas.cpc2 > 0 || change.formulas.cpc2 == null',
    totals: true,
  });
  add('campaigns', { ...compared, compare: 'PREVIOUS_PERIOD', segments: 'Week,DayOfWeek', totals: 'segments' });
  add('campaigns', {
    ...compared,
    compare: 'PREVIOUS_PERIOD',
    currency: 'USD',
    segments: 'DeviceType',
    totals: 'segments',
  });
  add('accounts', { ...compared, compare: 'PREVIOUS_PERIOD', currency: ctx.missingFx.target, totals: true });
  add('accounts', { ...compared, compare: 'PREVIOUS_YEAR', segments: 'Year,Month', totals: 'segments' });
  add('campaigns', { ...compared, compare: 'PREVIOUS_PERIOD', format: 'csv', segments: 'Day' });
  add('campaigns', {
    ...compared,
    compare: 'PREVIOUS_PERIOD',
    format: 'ndjson',
    formulas: 'c:statistics.clicks * 2:Integer',
  });
  add('keywords', { ...compared, compare: 'PREVIOUS_PERIOD', format: 'parquet', segments: 'Month' });
  add('ads/facebook', {
    ...range,
    compare: 'PREVIOUS_PERIOD',
    segments: 'Week',
    statistics: 'reach,impressions,frequency',
    totals: 'segments',
  });
  add('campaigns', { ...compared, compare: '2026-01-01..2025-01-01' });
  add('campaigns', { ...compared, compare: 'LAST_WEEK' });
  add('campaigns', { ...compared, segments: 'Day', compare: `${ctx.edgeFrom}..${ctx.edgeTo}` });
  add('campaigns', { ...compared, totals: 'segments' });
  add('campaigns', { ...compared, filter: 'change.statistics.clicks > 0' });
  add('campaigns', { ...compared, compare: 'PREVIOUS_YEAR', segments: 'Quarter,NetworkType', totals: 'segments' });
  add('accounts', {
    statistics: compared.statistics,
    dateRange: 'LAST_30_DAYS',
    compare: 'PREVIOUS_PERIOD',
    segments: 'NetworkType',
  });
  add('accounts/campaign-labels/name/objective', {
    ...compared,
    compare: 'PREVIOUS_PERIOD',
    segments: 'Month',
    totals: 'segments',
  });

  // Markups.
  add('markups', {});
  add('markups', {}, 1);
  add('markups', { startDate: ctx.from, endDate: ctx.to });
  add('markups', { startDate: ctx.to });
  add('markups', { accountId: '1,2', limit: 1, offset: 1 });
  add('markups', { endDate: '2020-01-01' });
  add('markups', { limit: 0 });

  // Call details.
  const calls = { startDate: ctx.from, endDate: ctx.to };
  add('call-details', {});
  add('call-details', { ...calls, limit: 10000 });
  add('call-details', { ...calls, limit: 10000 }, 1);
  add('call-details', { ...calls, limit: 20, offset: 40 });
  add('call-details', { ...calls, sort: '-durationSeconds', limit: 50 });
  add('call-details', { ...calls, sort: 'status,-startTime', limit: 50 });
  add('call-details', { ...calls, sort: 'isConversion,callerCountry', limit: 10000 });
  add('call-details', { ...calls, filter: "status == 'MISSED' and durationSeconds >= 60" });
  add('call-details', { ...calls, filter: 'isConversion == true || accountId == null' });
  add('call-details', { ...calls, filter: "adPlatformType in ['ADWORDS', 'BING_ADS']", limit: 1000 });
  add('call-details', { ...calls, filter: "startsWith(callerAreaCode, '2') && !(callType == 'MOBILE')" });
  add('call-details', { ...calls, filter: `startTime >= '${ctx.to}'` });
  add('call-details', { ...calls, filter: "contains(callerCountry, 'E')", sort: '-id' });
  add('call-details', { ...calls, filter: 'accountId in [1, 3]', limit: 1000 });
  add('call-details', { ...calls, filter: 'durationSeconds >' });
  add('call-details', { ...calls, sort: 'nonsense' });
  add('call-details', { startDate: ctx.edgeFrom, endDate: ctx.edgeTo });

  addPresetsAndNewSegments(add, ctx, segmentNames);
  addBreakdownSegments(add, ctx);
  return out;
}

const ISSUE_23_SEGMENTS: readonly string[] = ['Quarter', 'NetworkType'];
/** The segments of issue 40: the breakdowns (one at a time) and WeekSunday, asked by addBreakdownSegments. */
export const ISSUE_40_SEGMENTS: readonly string[] = [
  'WeekSunday',
  'Hour',
  'HourOfDay',
  'Age',
  'Gender',
  'PublisherPlatform',
  'PlatformPosition',
  'Country',
  'Region',
  'ConversionAction',
];

/**
 * Issue 23 items 1 and 3: dateRange presets (the services share the clock, so both resolve the
 * same range; X-Start-Date/X-End-Date are compared), and the segments Quarter and NetworkType
 * alone everywhere, with every other segment where the figures come from different places, in
 * filters, sorts, exports and over the ISO-week/year edge days.
 */
function addPresetsAndNewSegments(
  add: (path: string, query: QueryInput, org?: number) => void,
  ctx: CorpusContext,
  older: readonly string[],
): void {
  const range = { startDate: ctx.from, endDate: ctx.to };
  const presets = ['LAST_7_DAYS', 'LAST_MONTH', 'THIS_QUARTER', 'LAST_QUARTER', 'THIS_YEAR', 'TODAY', 'LAST_WEEK'];
  const pairsOn = new Set(['campaigns', 'keywords', 'accounts', 'ads/facebook', 'adplatform-accounts/google-ads']);
  STAT_ENDPOINTS.forEach((path, e) => {
    const { endpoint } = catalogOf(path);
    const all = endpoint.statistics.map((s) => s.name).join(',');
    add(path, { dateRange: presets[e % presets.length]!, statistics: all, totals: true, limit: 300 });
    add(path, { dateRange: presets[(e + 3) % presets.length]!, segments: 'Day', limit: 300 });
    for (const [i, segment] of ISSUE_23_SEGMENTS.entries())
      add(path, { ...range, segments: segment, statistics: all, totals: i === 0, limit: 300 });
    if (!pairsOn.has(path)) return;
    add(path, { ...range, segments: 'Quarter,NetworkType', statistics: all, limit: 300 });
    for (const other of older) {
      add(path, { ...range, segments: `${other},Quarter`, statistics: 'impressions,clicks,cost,ctr', limit: 300 });
      add(path, { ...range, segments: `NetworkType,${other}`, statistics: 'impressions,clicks,cost,ctr', limit: 300 });
    }
  });
  add('campaigns', {
    startDate: ctx.edgeFrom,
    endDate: ctx.edgeTo,
    segments: 'Quarter,Week',
    statistics: 'clicks,cost',
  });
  add('accounts', { startDate: ctx.edgeFrom, endDate: ctx.edgeTo, segments: 'Quarter', totals: true, currency: 'USD' });
  add('campaigns', {
    ...range,
    segments: 'Quarter,NetworkType',
    filter: "segments.networkType in ['SEARCH', 'DISPLAY'] && statistics.clicks > 0",
    sort: '-segments.quarter,-segments.networkType,-statistics.clicks',
    limit: 200,
  });
  add('keywords', { ...range, segments: 'Quarter', filter: `segments.quarter >= '${ctx.to.slice(0, 4)}-Q2'` });
  add('adgroups', { ...range, segments: 'NetworkType', sort: 'segments.networkType,-statistics.cost', limit: 100 });
  add('campaigns/facebook', { ...range, segments: 'NetworkType,Month', statistics: 'impressions,reach,frequency' });
  add('accounts/campaign-labels/name/team', { dateRange: 'LAST_30_DAYS', segments: 'NetworkType', totals: true });
  add('campaigns', { dateRange: 'LAST_QUARTER', format: 'csv', segments: 'Quarter,NetworkType' });
  add('ads', { ...range, format: 'parquet', segments: 'NetworkType,DeviceType', statistics: 'clicks,cost' });
  add('keywords', { dateRange: 'THIS_YEAR', format: 'ndjson', segments: 'Quarter' });
  // Bad input: a preset with dates, an unknown preset, an unknown segment key in sort.
  add('campaigns', { dateRange: 'LAST_7_DAYS', startDate: ctx.from });
  add('accounts', { dateRange: 'NEXT_WEEK', format: 'csv' });
  add('campaigns', { ...range, segments: 'NetworkType', sort: 'segments.quarter' });
}

/**
 * Issue 40: the breakdown segments (each read from its breakdown table: hours, audience,
 * placement, geography, conversion actions) and WeekSunday, on the levels that have them (the
 * campaign and above), alone and with the time segments, the device and network where the hours
 * keep them; a fact filter on a bucket, sorts and filters on bucket values, totals per segment,
 * compared periods (Hour paired by position), exports; search terms (item 5); and the 400s of
 * what no source has (two breakdowns, a breakdown below the campaign, a statistic the breakdown
 * lacks, hours or search terms beyond their retention), which both engines must give alike.
 * Appended: the earlier requests keep their place and organization.
 */
function addBreakdownSegments(
  addAny: (path: string, query: QueryInput, org?: number) => void,
  ctx: CorpusContext,
): void {
  // A breakdown or search terms is read from its own table with aggregate tables on or off: the
  // file without them asks only what reads the facts otherwise (WeekSunday with daily segments).
  const add = (path: string, query: QueryInput, org?: number) => {
    const breakdownKeys = ISSUE_40_SEGMENTS.filter((name) => name !== 'WeekSunday').map(
      (n) => SEGMENT_BY_NAME.get(n)!.key,
    );
    const segments = String(query.segments ?? '').split(',');
    const readsSplit =
      path === 'search-terms' ||
      segments.some((name) => name !== 'WeekSunday' && ISSUE_40_SEGMENTS.includes(name)) ||
      breakdownKeys.some((key) => String(query.filter ?? '').includes(`segments.${key}`));
    if (ctx.rollups !== false || !readsSplit) addAny(path, query, org);
  };
  const range = { startDate: ctx.from, endDate: ctx.to };
  // Two weeks ending on the last day, and the two weeks before it: PREVIOUS_PERIOD over data, inside the hours' retention.
  const recent = { startDate: addDays(ctx.to, -13), endDate: ctx.to };
  const ads = 'impressions,clicks,cost,ctr,averageCpc,conversions,conversionValue';
  const conversions = 'conversions,conversionValue';
  const statisticsOf = (segments: string) => (segments.includes('ConversionAction') ? conversions : ads);
  const levels = ['campaigns', 'accounts', 'adplatform-accounts', 'accounts/campaign-labels/name/team'];

  // Each alone on every level that has it (accounts: FX per day), and on the second organization.
  for (const [i, segment] of ISSUE_40_SEGMENTS.entries()) {
    for (const [l, path] of levels.entries()) {
      const hourly = segment === 'Hour';
      add(path, {
        ...(hourly ? recent : range),
        segments: segment,
        statistics: statisticsOf(segment),
        totals: (i + l) % 2 === 0,
        limit: 2000,
      });
    }
    add('campaigns', { ...recent, segments: segment, statistics: statisticsOf(segment), limit: 2000 }, 1);
  }
  // With the time segments, device and network (hours keep them), and a bucket pair of one breakdown.
  for (const segments of [
    'Hour,DeviceType',
    'NetworkType,HourOfDay',
    'HourOfDay,DayOfWeek',
    'Day,HourOfDay',
    'Week,Hour',
    'Age,Gender',
    'Gender,Month',
    'PublisherPlatform,PlatformPosition',
    'PlatformPosition,Week',
    'Country,Region',
    'Region,Day',
    'Year,Country',
    'ConversionAction,Month',
    'WeekSunday,Country',
    'WeekSunday,DeviceType',
    'WeekSunday,Week',
    'Quarter,Age',
  ]) {
    add('campaigns', { ...recent, segments, statistics: statisticsOf(segments), limit: 3000 });
    add('accounts', { ...recent, segments, statistics: statisticsOf(segments), currency: 'USD', limit: 3000 });
  }
  // WeekSunday over the year boundary (its weeks from the facts, like Week's).
  add('campaigns', {
    startDate: ctx.edgeFrom,
    endDate: ctx.edgeTo,
    segments: 'WeekSunday,Year',
    statistics: 'clicks,cost',
  });
  add('accounts', { startDate: '2024-12-28', endDate: '2025-01-05', segments: 'WeekSunday', totals: true });
  // The FACEBOOK endpoints without reach (which no breakdown has); the facebook-only breakdowns on one platform.
  add('campaigns/facebook', { ...range, segments: 'Age', statistics: 'impressions,clicks,cost', totals: true });
  add('adplatform-accounts/facebook', { ...range, segments: 'PublisherPlatform', statistics: 'impressions,clicks' });
  add('adplatform-accounts/google-ads', { ...range, segments: 'Country', statistics: 'impressions,clicks,cost' });
  // Fact filters on buckets, with and without their segment; filters and sorts on bucket values.
  add('campaigns', { ...range, segments: 'Region', filter: "segments.country == 'DE'", statistics: ads, totals: true });
  add('accounts', { ...range, filter: "segments.country in ['US', 'GB']", statistics: ads, totals: true });
  add('campaigns', { ...recent, segments: 'HourOfDay', filter: 'segments.hourOfDay >= 18', statistics: ads });
  add('campaigns', {
    ...recent,
    segments: 'Hour',
    filter: "segments.hour >= '" + addDays(ctx.to, -2) + "T12:00' && statistics.clicks > 0",
    sort: '-segments.hour,-statistics.clicks',
    limit: 500,
  });
  add('campaigns', {
    ...range,
    segments: 'Age,Gender',
    filter: "segments.age in ['18-24', '65+'] && segments.gender != 'unknown'",
    sort: 'segments.gender,-statistics.cost',
    statistics: ads,
  });
  add('adplatform-accounts', {
    ...range,
    segments: 'ConversionAction',
    filter: "startsWith(segments.conversionAction, 'P') || statistics.conversions > 100",
    sort: '-statistics.conversionValue,segments.conversionAction',
    statistics: conversions,
  });
  add('accounts', { ...range, segments: 'PlatformPosition', sort: '-segments.platformPosition', statistics: ads });
  // Totals per segment; compared periods (Hour and WeekSunday paired by position).
  add('campaigns', { ...range, segments: 'Country', totals: 'segments', statistics: ads, limit: 500 });
  add('accounts', { ...recent, segments: 'HourOfDay', totals: 'segments', statistics: ads, currency: 'EUR' });
  add('campaigns', {
    ...recent,
    segments: 'Hour',
    compare: 'PREVIOUS_PERIOD',
    statistics: ads,
    totals: true,
    limit: 3000,
  });
  add('accounts', { ...recent, segments: 'Hour', compare: 'PREVIOUS_PERIOD', totals: 'segments', statistics: ads });
  add('campaigns', {
    ...range,
    segments: 'WeekSunday',
    compare: 'PREVIOUS_PERIOD',
    totals: 'segments',
    statistics: ads,
  });
  add('campaigns', {
    ...recent,
    segments: 'Country',
    compare: 'PREVIOUS_PERIOD',
    filter: 'change.statistics.clicks < 0',
    statistics: ads,
  });
  add('adplatform-accounts', {
    ...recent,
    segments: 'ConversionAction',
    compare: 'PREVIOUS_PERIOD',
    statistics: conversions,
  });
  add('campaigns', { ...recent, segments: 'Gender', compare: 'PREVIOUS_YEAR', statistics: ads, totals: true });
  // Exports.
  add('campaigns', { ...recent, format: 'csv', segments: 'Hour', statistics: ads, currency: 'USD' });
  add('accounts', { ...range, format: 'ndjson', segments: 'Country,Region', statistics: ads });
  add('campaigns', { ...range, format: 'parquet', segments: 'Age', statistics: ads });
  add('adplatform-accounts', { ...range, format: 'csv', segments: 'ConversionAction', statistics: conversions });
  // Search terms (issue 40 item 5), kept 90 days: the world's 60 are all there.
  const terms = 'search-terms';
  add(terms, { ...range, statistics: ads, totals: true, limit: 3000 });
  add(terms, { ...recent, segments: 'Day,DeviceType', statistics: 'impressions,clicks,cost', limit: 5000 });
  add(terms, { ...range, segments: 'Week', filter: "contains(searchTerm, 'in stock') && statistics.clicks > 0" });
  add(terms, { ...range, sort: '-statistics.cost,searchTerm', statistics: ads, currency: 'USD', limit: 50 });
  add(terms, { ...recent, compare: 'PREVIOUS_PERIOD', statistics: ads, totals: 'segments', segments: 'NetworkType' });
  add(terms, { ...range, format: 'csv', segments: 'Month', statistics: ads });
  add(terms, { ...range, segments: 'Hour' });
  add(terms, { startDate: addDays(ctx.to, -120), endDate: ctx.to });
  // What no source has: the same 400 from both.
  add('campaigns', { ...range, segments: 'Age,Country' });
  add('campaigns', { ...range, segments: 'Country', filter: "segments.deviceType == 'MOBILE'" });
  add('adgroups', { ...range, segments: 'Hour' });
  add('keywords', { ...range, segments: 'Country' });
  add('campaigns', { ...range, segments: 'ConversionAction', statistics: 'clicks' });
  add('campaigns/facebook', { ...range, segments: 'Gender' });
  add('campaigns', { startDate: addDays(ctx.to, -400), endDate: ctx.to, segments: 'HourOfDay' });
  add('campaigns', { ...recent, segments: 'Hour', compare: 'PREVIOUS_YEAR' });
}
