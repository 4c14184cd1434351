import { levelOf, type LevelDefinition } from '../catalog/levels.js';
import { segmentOf, type SegmentKey } from '../catalog/segments.js';
import {
  FACT_MEASURES,
  MONEY_MEASURES,
  SHARE_MEASURES,
  sourceOf,
  type BaseMeasure,
  type FactMeasure,
  type ShareMeasure,
} from '../catalog/statistics.js';
import { ENDPOINT_BY_PATH } from '../catalog/endpoints.js';
import { usedMeasures, type ReportPlan } from '../planner/report-plan.js';
import { assertNever } from '../shared/assert-never.js';
import { Binder } from './binder.js';
import type { SqlDialect } from './dialect.js';
import { comparedSumColumn, conditionSql, segmentColumn, sumColumn, type ExpressionContext } from './expressions.js';
import { factSource, type CompileOptions } from './fact-source.js';
import { levelEntities } from './level-sources.js';

/**
 * The part every statement of a report shares: the CTEs up to `report_rows` (one row per entity,
 * or per entity and segment bucket, with its base sums), built once per request. The finishers
 * (page, totals, JSON page, export, estimates) add the bucket filter, the order and their SELECT.
 *
 * Shape: entities of the level (organization, name and entity filters) -> daily sums of the fact
 * table (organization, date range, fact filters) -> money per day (accounts: the day's FX rate
 * into the account currency; costWithMarkup: the day's markup) -> buckets per entity and
 * segments -> one row per entity (LEFT JOIN, zeros, without segments) or per active bucket.
 */
export interface ReportQuery {
  readonly plan: ReportPlan;
  readonly dialect: SqlDialect;
  readonly level: LevelDefinition;
  /** `WITH ... report_rows AS (...)`. */
  readonly ctes: string;
  /** The values the CTEs bind; finishers fork it. */
  readonly binder: Binder;
  /** /accounts/campaign-labels/name/{name}: rows carry label_value. */
  readonly labelled: boolean;
  /** Rows carry the first/last day and currencies converted at estimated rates. */
  readonly tracksEstimates: boolean;
  /** The asked currency's placeholder, when money is converted into it. */
  readonly target: string | undefined;
  readonly segmentNames: readonly string[];
  /** The sums report_rows carries. */
  readonly rowMeasures: readonly BaseMeasure[];
  /** The table the daily sums are read from: the level's fact table or a rollup of it (fact-source.ts). */
  readonly factTable: string;
}

const FACT_SUM_COLUMNS: Readonly<Record<Exclude<FactMeasure, 'costWithMarkup'>, string>> = {
  impressions: 'impressions',
  clicks: 'clicks',
  cost: 'cost',
  conversions: 'conversions',
  conversionValue: 'conversion_value',
  calls: 'calls',
  callConversions: 'call_conversions',
  callConversionsFractional: 'call_conversions_fractional',
};
const SHARE_SUM_COLUMNS: Readonly<Record<ShareMeasure, string>> = {
  searchImpressions: 'impressions',
  searchEligibleImpressions: 'eligible_impressions',
  searchBudgetLostImpressions: 'budget_lost_impressions',
  searchRankLostImpressions: 'rank_lost_impressions',
  searchTopImpressions: 'top_impressions',
  searchAbsoluteTopImpressions: 'absolute_top_impressions',
};

/**
 * Reach of the runs in each partition: the length of their union. Sorted by start, a run adds
 * what lies beyond the furthest end of the runs before it (gaps and islands in one window pass;
 * a month of a scale-10 organization's runs by day: 23 ms).
 */
export function unionLength(runs: string, partition: string, d: SqlDialect): string {
  return `SELECT ${partition ? `${partition}, ` : ''}coalesce(sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from)))), 0) AS ${sumColumn('reach')}
    FROM (SELECT u.*, max(u.user_to) OVER (PARTITION BY ${partition ? `${partition}, ` : ''}u.pa ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
            FROM ${runs}) ${partition ? d.groupByAll : ''}`;
}

/** Money comes converted (and with the markup) from the buckets; counts as the facts summed them. */
function bucketColumn(m: FactMeasure): string {
  switch (m) {
    case 'cost':
      return 'b.m_cost';
    case 'conversionValue':
      return 'b.m_conversion_value';
    case 'costWithMarkup':
      return 'b.m_cost_with_markup';
    case 'impressions':
    case 'clicks':
    case 'conversions':
    case 'calls':
    case 'callConversions':
    case 'callConversionsFractional':
      return `b.${FACT_SUM_COLUMNS[m]}`;
    default:
      return assertNever(m, 'measure');
  }
}

/** One date range a report reads: the report's own, or the compared one (CTE names prefixed). */
interface Period {
  readonly prefix: '' | 'c_';
  /** Bound placeholders of the range's first and last day. */
  readonly from: string;
  readonly to: string;
  /** The day a fact row's time segment is computed from (its own day, or the paired day). */
  readonly segmentDay: (key: SegmentKey, day: string) => string;
}

/**
 * A compared fact row's day moved to the report's range for one time segment: the first day of
 * the report's range plus as many buckets as the row's day lies after the compared range's first
 * bucket, so its segment value is that of the report's bucket at the same position (the i-th Day
 * of one range with the i-th of the other; with PREVIOUS_YEAR a Month with the same month a year
 * before). Non-time segments keep the row's own day: they pair by value.
 */
function pairedDay(key: SegmentKey, day: string, comparedFrom: string, from: string, d: SqlDialect): string {
  const months = (unit: number) =>
    d.addMonths(
      from,
      `${unit} * (${d.integerDivide(d.monthNumber(day), String(unit))} - ${d.integerDivide(d.monthNumber(comparedFrom), String(unit))})`,
    );
  switch (key) {
    case 'day':
    case 'hour':
      return d.addDays(from, `(${d.dayNumber(day)} - ${d.dayNumber(comparedFrom)})`);
    case 'week':
      return d.addDays(from, `(${d.dayNumber(d.weekStart(day))} - ${d.dayNumber(d.weekStart(comparedFrom))})`);
    case 'weekSunday':
      return d.addDays(
        from,
        `(${d.dayNumber(d.weekStartSunday(day))} - ${d.dayNumber(d.weekStartSunday(comparedFrom))})`,
      );
    case 'month':
      return months(1);
    case 'quarter':
      return months(3);
    case 'year':
      return months(12);
    case 'dayOfWeek':
    case 'deviceType':
    case 'networkType':
    case 'hourOfDay':
    case 'age':
    case 'gender':
    case 'publisherPlatform':
    case 'platformPosition':
    case 'country':
    case 'region':
    case 'conversionAction':
      return day;
    default:
      return assertNever(key, 'segment');
  }
}

/** The estimate columns of both ranges' sums (`b`) in one bucket row (see bucketEstimates). */
function pivotEstimates(accounts: boolean, d: SqlDialect): string[] {
  return [
    'min(b.est_first) AS est_first',
    'max(b.est_last) AS est_last',
    ...(accounts
      ? [`${d.stringAgg('b.est_currencies', ',')} AS est_currencies`]
      : [`${d.boolOr('b.src_est')} AS src_est`, `${d.boolOr('b.tgt_est')} AS tgt_est`]),
  ];
}

export function reportQuery(plan: ReportPlan, d: SqlDialect, options: CompileOptions = {}): ReportQuery {
  const measures = usedMeasures(plan);
  const binder = Binder.start(d);
  const org = binder.bind(plan.organizationId, 'bigint');
  const from = binder.bind(plan.from, 'date');
  const to = binder.bind(plan.to, 'date');
  const context: ExpressionContext = { plan, dialect: d, binder };
  const level = levelOf(plan.level);
  const factTable = factSource(plan, level, options);
  // `currency`: rows show it, and their money is converted into it (bound before the CTEs, which the totals query shares).
  const target = plan.currency === undefined ? undefined : binder.bind(plan.currency, 'varchar');
  const double = (sql: string) => d.cast(sql, 'double');

  const { entities, label, narrowed } = entitiesOf(plan, org, d, binder);

  const entityScope = level.factKey && narrowed ? `f.${level.factKey} IN (SELECT id FROM entities)` : '';
  const factFilter = plan.factFilter ? conditionSql(plan.factFilter, 'f', context) : '';
  const attribution = plan.attributionParts?.map((part) => binder.bind(part, 'varchar')).join(', ');
  // The fact columns other than the day that segments read (device, network, an hour, an age, ...).
  const segmentColumns = [...new Set(plan.segments.flatMap((key) => segmentOf(key).reads.filter((c) => c !== 'day')))];
  const withMarkup = measures.has('costWithMarkup');
  const withShares = [...measures].some((m) => sourceOf(m) === 'impressionShare');
  const withReach = measures.has('reach');
  const withMoney = [...measures].some((m) => MONEY_MEASURES.has(m));
  // Lower levels keep the platform account's currency unless `currency` asks for another and money is read.
  const convertLower = level.factKey !== null && target !== undefined && withMoney;
  // Accounts convert whenever they read money; the days converted at estimated rates are tracked for the warning.
  const tracksEstimates = withMoney && (level.factKey === null || convertLower);
  // Days matter for FX (accounts), markups and time segments; otherwise one row per entity is enough.
  const byDay = level.factKey === null || withMarkup || plan.segments.some((s) => segmentOf(s).reads.includes('day'));
  // Group by as few keys as the plan needs: a second BIGINT key made the aggregation ~3x slower
  // (7 -> 19 ms on a month of a scale-10 organization), so the platform account is only kept where
  // it leads to an account (accounts: FX and links; costWithMarkup: the markup's account).
  const keys: Array<readonly [sql: string, name: string]> = [
    ...(level.factKey ? [[`f.${level.factKey}`, 'entity_id'] as const] : []),
    ...(label ? [['cl.value', 'label_value'] as const] : []),
    ...(level.factKey === null || withMarkup ? [['f.adplatform_account_id', 'pa'] as const] : []),
    ...(byDay ? [['f.day', 'day'] as const] : []),
    ...segmentColumns.map((c) => [`f.${c}`, c] as const),
  ];
  // The daily row's columns, each named: over three or more joined tables ClickHouse names an
  // unaliased `d.day` (and `d.*`'s day) `d.day` where another table has a `day` too.
  const dailyColumns = [...keys.map(([, name]) => name), ...Object.values(FACT_SUM_COLUMNS)]
    .map((c) => `d.${c} AS ${c}`)
    .join(', ');
  const markupJoin = (accountColumn: string) =>
    `LEFT JOIN markups mk ON mk.account_id = ${accountColumn} AND d.day BETWEEN mk.start_date AND coalesce(mk.end_date, ${d.dateLiteral('9999-12-31')})`;
  const firstLinkedAccount = `LEFT JOIN (SELECT adplatform_account_id, min(account_id) AS account_id FROM account_adplatform_links ${d.groupByAll}) ma ON ma.adplatform_account_id = d.pa`;
  // Converted money and money with a markup are exact decimals per row (dialect.exactMoney): summed
  // as doubles, a total on a half micro rounded either way with the order of the rows.
  const money = (column: string, factor: string, markup = '') => d.exactMoney(`d.${column} * ${factor}${markup}`);
  const withMarkupRate = ` * (1 + ${double('coalesce(mk.rate, 0)')})`;
  const sumSelect = FACT_MEASURES.map((m) => `sum(${bucketColumn(m)}) AS ${sumColumn(m)}`);
  // Per bucket: the first and last day converted at an estimated rate, and which rates (accounts:
  // the currencies; lower levels: whether the source's or the target's, the row knows both).
  const bucketEstimates = (day: string, source: string) =>
    !tracksEstimates
      ? ''
      : `, min(${day}) AS est_first, max(${day}) AS est_last, ${
          level.factKey === null
            ? `${d.distinctJoined(`${source}.est_currencies`)} AS est_currencies`
            : `${d.boolOr(`${source}.src_est`)} AS src_est, ${d.boolOr(`${source}.tgt_est`)} AS tgt_est`
        }`;
  // Without markups the buckets are summed straight from the facts: one aggregation instead of two
  // (a month of campaigns on scale 10: 19 -> 9 ms); converted money then takes the day's factor of
  // the platform account from pa_rates, a few hundred rows.
  const direct = level.factKey !== null && !withMarkup;
  const segmentNames = plan.segments.map((_, i) => segmentColumn(i));

  /**
   * The CTEs that read one date range: the report's own (names as they are), or with compare the
   * compared one (names prefixed `c_`), whose time segments name the bucket of the report's range
   * at the same position (pairedDay), so that the two pair by equal segment values.
   */
  const periodCtes = (period: Period): string => {
    const n = (name: string) => `${period.prefix}${name}`;
    const { from, to } = period;
    const factWhere = [`f.organization_id = ${org}`, `f.day BETWEEN ${from} AND ${to}`];
    if (factFilter) factWhere.push(factFilter);
    if (entityScope) factWhere.push(entityScope);
    // The additive sums alone count by the attribution setting; reach and shares have none.
    const sumsWhere = attribution ? [...factWhere, `f.attribution_part IN (${attribution})`] : factWhere;
    const daily = `SELECT ${keys.map(([sql, name]) => (sql === `f.${name}` ? sql : `${sql} AS ${name}`)).join(', ')},
      ${Object.values(FACT_SUM_COLUMNS)
        .map((c) => `sum(f.${c}) AS ${c}`)
        .join(', ')}
    FROM ${factTable} f${label ? ` JOIN campaign_labels cl ON cl.campaign_id = f.campaign_id AND cl.name = ${label}` : ''}
   WHERE ${sumsWhere.join(' AND ')} ${d.groupByAll}`;

    let buckets: string;
    if (level.factKey === null) {
      // Accounts: every linked platform account's days, converted at the day's rate into the account
      // currency, or straight into the asked one (same day's rates).
      const factor = `(${double('ra.units_per_eur')} / ${double('rp.units_per_eur')})`;
      // A conversion between two currencies of which one rate is not published that day (EUR's always is).
      const converted = 'p.currency <> ra.currency';
      const estimates = tracksEstimates
        ? `, CASE WHEN ${converted} AND NOT (ra.published AND rp.published) THEN d.day END AS est_day,
         nullif(${d.concatWithSeparator(',', [`CASE WHEN ${converted} AND NOT rp.published THEN p.currency END`, `CASE WHEN ${converted} AND NOT ra.published THEN ra.currency END`])}, '') AS est_currencies`
        : '';
      buckets = `SELECT l.account_id AS entity_id, ${dailyColumns}, ${money('cost', factor)} AS m_cost, ${money('conversion_value', factor)} AS m_conversion_value,
        ${withMarkup ? money('cost', factor, withMarkupRate) : 'NULL'} AS m_cost_with_markup${estimates}
      FROM ${n('daily')} d
      JOIN account_adplatform_links l ON l.adplatform_account_id = d.pa
      JOIN entities e ON e.id = l.account_id${label ? ' AND e.label_value = d.label_value' : ''}
      JOIN adplatform_accounts p ON p.id = d.pa
      LEFT JOIN fx_rates ra ON ra.day = d.day AND ra.currency = ${target ?? 'e.currency'} AND ra.day BETWEEN ${from} AND ${to}
      LEFT JOIN fx_rates rp ON rp.day = d.day AND rp.currency = p.currency AND rp.day BETWEEN ${from} AND ${to}
      ${withMarkup ? markupJoin('l.account_id') : ''}`;
    } else if (convertLower) {
      // Converted lower levels with markups: the day's factor of the row's platform account (pa_rates).
      buckets = `SELECT ${dailyColumns}, ${money('cost', 'x.factor')} AS m_cost, ${money('conversion_value', 'x.factor')} AS m_conversion_value,
        ${money('cost', 'x.factor', withMarkupRate)} AS m_cost_with_markup,
        x.est_day, x.src_est, x.tgt_est
      FROM ${n('daily')} d
      LEFT JOIN ${n('pa_rates')} x ON x.pa = d.pa AND x.day = d.day
      ${firstLinkedAccount} ${markupJoin('ma.account_id')}`;
    } else {
      // Lower levels keep the platform account's currency; the markup is that of its first linked account.
      buckets = `SELECT ${dailyColumns}, d.cost AS m_cost, d.conversion_value AS m_conversion_value,
        ${withMarkup ? 'd.cost * (1 + coalesce(mk.rate, 0))' : 'NULL'} AS m_cost_with_markup
      FROM ${n('daily')} d
      ${withMarkup ? `${firstLinkedAccount} ${markupJoin('ma.account_id')}` : ''}`;
    }
    // Per platform account and day of the range: the factor from its currency into the asked one, and
    // whether either rate is not a published one (a conversion within one currency estimates nothing).
    const paRates = `SELECT pa, day, factor, src_est, tgt_est, CASE WHEN src_est OR tgt_est THEN day END AS est_day
    FROM (SELECT p.id AS pa, rs.day AS day, ${double('rt.units_per_eur')} / ${double('rs.units_per_eur')} AS factor,
                 p.currency <> ${target} AND NOT rs.published AS src_est, p.currency <> ${target} AND NOT rt.published AS tgt_est
            FROM adplatform_accounts p
            JOIN fx_rates rs ON rs.currency = p.currency AND rs.day BETWEEN ${from} AND ${to}
            LEFT JOIN fx_rates rt ON rt.currency = ${target} AND rt.day = rs.day
           WHERE p.organization_id = ${org})`;

    const segmentKeys = (alias: string) =>
      plan.segments
        .map(
          (key, i) =>
            `, ${d.segment(segmentOf(key), period.segmentDay(key, `${alias}.day`), (c) => `${alias}.${c}`)} AS ${segmentColumn(i)}`,
        )
        .join('');
    const directSum = (m: FactMeasure) =>
      m === 'costWithMarkup'
        ? double('NULL')
        : convertLower && MONEY_MEASURES.has(m)
          ? `sum(${d.exactMoney(`f.${FACT_SUM_COLUMNS[m]} * x.factor`)})`
          : `sum(f.${FACT_SUM_COLUMNS[m]})`;
    const sums = direct
      ? `SELECT f.${level.factKey} AS entity_id${segmentKeys('f')},
        ${FACT_MEASURES.map((m) => `${directSum(m)} AS ${sumColumn(m)}`).join(', ')}${bucketEstimates('x.est_day', 'x')}
        FROM ${factTable} f${convertLower ? ` LEFT JOIN ${n('pa_rates')} x ON x.pa = f.adplatform_account_id AND x.day = f.day` : ''} WHERE ${sumsWhere.join(' AND ')} ${d.groupByAll}`
      : `SELECT b.entity_id${label ? ', b.label_value' : ''}${segmentKeys('b')}, ${sumSelect.join(', ')}${bucketEstimates('b.est_day', 'b')} FROM ${n('buckets')} b ${d.groupByAll}`;

    // Impression share and reach come from their own fact tables, per entity and segments like the sums.
    const shares = `SELECT f.${level.factKey} AS entity_id${segmentKeys('f')},
      ${SHARE_MEASURES.map((m) => `sum(f.${SHARE_SUM_COLUMNS[m]}) AS ${sumColumn(m)}`).join(', ')}
    FROM fact_impression_share_daily f WHERE ${factWhere.join(' AND ')} ${d.groupByAll}`;
    // FACEBOOK reports no device and one network (supplement 2: UNKNOWN, SOCIAL); the runs carry
    // them so that device and network filters and the DeviceType and NetworkType segments mean what they mean on its facts.
    const runs = `SELECT f.${level.factKey} AS entity_id${segmentKeys('f')}, f.adplatform_account_id AS pa, f.user_from, f.user_to
    FROM (SELECT *, ${d.factEnumLiteral('device', 'UNKNOWN')} AS device, ${d.factEnumLiteral('network', 'SOCIAL')} AS network FROM fact_audience_runs) f WHERE ${factWhere.join(' AND ')}`;
    const reach = unionLength(`${n('runs')} u`, ['entity_id', ...segmentNames].join(', '), d);
    return `${convertLower ? `\n    ${n('pa_rates')} AS (${paRates}),` : ''}
    ${direct ? '' : `${n('daily')} AS (${daily}), ${n('buckets')} AS (${buckets}),`}
    ${n('sums')} AS (${sums}),
    ${withShares ? `${n('shares')} AS (${shares}),` : ''}
    ${withReach ? `${n('runs')} AS (${runs}), ${n('reach')} AS (${reach}),` : ''}`;
  };

  const bucketKeys = ['entity_id', ...(label ? ['label_value'] : []), ...segmentNames];
  const current = periodCtes({ prefix: '', from, to, segmentDay: (_, day) => day });
  // With compare: the compared range's CTEs, then each of sums, shares and reach of both ranges in
  // one row per bucket (p_*): the compared sums as c_* columns beside the report's own.
  const compared = plan.compare && {
    from: binder.bind(plan.compare.from, 'date'),
    to: binder.bind(plan.compare.to, 'date'),
  };
  const pairedCtes = compared
    ? periodCtes({
        prefix: 'c_',
        ...compared,
        segmentDay: (key, day) => pairedDay(key, day, compared.from, from, d),
      }) +
      [
        pivot('sums', [...FACT_MEASURES], tracksEstimates ? pivotEstimates(level.factKey === null, d) : []),
        ...(withShares ? [pivot('shares', [...SHARE_MEASURES], [])] : []),
        ...(withReach ? [pivot('reach', ['reach'], [])] : []),
      ]
        .map((cte) => `\n    ${cte},`)
        .join('')
    : '';
  // Columns qualified: ClickHouse resolves `sum(x) AS x`'s inner x to the alias itself.
  function pivot(name: string, measures: readonly BaseMeasure[], extra: readonly string[]): string {
    const of = (period: number, m: BaseMeasure) => `sum(CASE WHEN b.period = ${period} THEN b.${sumColumn(m)} END)`;
    const keyColumns = name === 'sums' ? bucketKeys : ['entity_id', ...segmentNames];
    return `p_${name} AS (SELECT ${keyColumns.map((c) => `b.${c} AS ${c}`).join(', ')}, ${measures
      .map((m) => `${of(0, m)} AS ${sumColumn(m)}, ${of(1, m)} AS ${comparedSumColumn(m)}`)
      .join(', ')}${extra.map((sql) => `, ${sql}`).join('')}
      FROM (SELECT 0 AS period, * FROM ${name} UNION ALL SELECT 1 AS period, * FROM c_${name}) b ${d.groupByAll})`;
  }
  const bucketSource = (name: string) => (compared ? `p_${name}` : name);

  const rowMeasures: BaseMeasure[] = [
    ...FACT_MEASURES,
    ...(withShares ? SHARE_MEASURES : []),
    ...(withReach ? ['reach' as const] : []),
  ];
  const joinKind = plan.segments.length === 0 ? 'LEFT JOIN' : 'JOIN';
  const sameBucket = (alias: string) =>
    [`${alias}.entity_id = e.id`, ...segmentNames.map((c) => `${alias}.${c} = s.${c}`)].join(' AND ');
  const rowEstimates = !tracksEstimates
    ? ''
    : `, s.est_first AS __est_first, s.est_last AS __est_last, ${
        level.factKey === null
          ? 's.est_currencies'
          : `nullif(${d.concatWithSeparator(',', ['CASE WHEN s.src_est THEN e.currency END', `CASE WHEN s.tgt_est THEN ${target} END`])}, '')`
      } AS __est_currencies`;
  const sourceAlias = (m: BaseMeasure) => {
    const source = sourceOf(m);
    return source === 'facts' ? 's' : source === 'reach' ? 'rc' : 'sh';
  };
  const rowSums = (column: (m: BaseMeasure) => string) =>
    rowMeasures.map((m) => `coalesce(${sourceAlias(m)}.${column(m)}, 0) AS ${column(m)}`).join(', ');
  // With `currency` every row is in it; `e.currency` (filters on `currency`) stays the entity's own.
  const rows = `SELECT ${d.selectAllReplacing('e', target ? [['currency', target]] : [])}${segmentNames.map((c) => `, s.${c} AS ${c}`).join('')},
      ${rowSums(sumColumn)}${compared ? `, ${rowSums(comparedSumColumn)}` : ''}${rowEstimates}
    FROM entities e ${joinKind} ${bucketSource('sums')} s ON s.entity_id = e.id${label ? ' AND s.label_value = e.label_value' : ''}
    ${withShares ? `LEFT JOIN ${bucketSource('shares')} sh ON ${sameBucket('sh')}` : ''}
    ${withReach ? `LEFT JOIN ${bucketSource('reach')} rc ON ${sameBucket('rc')}` : ''}`;

  const ctes = `WITH entities AS (${entities}),${current}${pairedCtes}
    report_rows AS (${rows})`;
  return {
    plan,
    dialect: d,
    level,
    ctes,
    binder,
    labelled: label !== undefined,
    tracksEstimates,
    target,
    segmentNames,
    rowMeasures,
    factTable,
  };
}

/**
 * The report's entities alone, as its `entities` CTE selects them (organization, the endpoint's
 * platform, name and entity filters, campaign label values), for a statement of its own: the
 * freshness of the report's platform accounts. Binds the organization first, like reportQuery.
 */
export function reportEntities(plan: ReportPlan, d: SqlDialect, binder: Binder): string {
  return entitiesOf(plan, binder.bind(plan.organizationId, 'bigint'), d, binder).entities;
}

/**
 * The `entities` CTE's SELECT: the level's entities of the organization (`org`, bound) past the
 * endpoint's platform, the name pattern and the entity filters; labelled (campaign-label
 * endpoint), one row per account and label value. Binds those values in that order, then the
 * label (`label`, its placeholder); `narrowed`: whether anything but the organization selects.
 */
function entitiesOf(
  plan: ReportPlan,
  org: string,
  d: SqlDialect,
  binder: Binder,
): { entities: string; label: string | undefined; narrowed: boolean } {
  const level = levelOf(plan.level);
  const endpoint = ENDPOINT_BY_PATH.get(plan.endpoint)!;
  const entityWhere: string[] = [];
  if (endpoint.platform !== undefined)
    entityWhere.push(
      `e.${d.quote(level.fields.find((f) => f.name === 'adPlatformType')!.column)} = ${binder.bind(endpoint.platform)}`,
    );
  if (plan.namePattern !== undefined)
    entityWhere.push(
      d.like(
        `e.${level.nameParameter === 'searchTerm' ? d.quote('searchTerm') : level.nameParameter}`,
        binder.bind(plan.namePattern),
      ),
    );
  if (plan.entityFilter) entityWhere.push(conditionSql(plan.entityFilter, 'e', { plan, dialect: d, binder }));
  // /accounts/campaign-labels/name/{name}: an account once per value of the label on campaigns of its platform accounts.
  const label = plan.campaignLabel === undefined ? undefined : binder.bind(plan.campaignLabel.stored);
  const labelled = label
    ? ` JOIN (SELECT DISTINCT l.account_id AS account_id, cl.value AS label_value FROM account_adplatform_links l
               JOIN campaigns c ON c.adplatform_account_id = l.adplatform_account_id
               JOIN campaign_labels cl ON cl.campaign_id = c.id
              WHERE cl.name = ${label} AND c.organization_id = ${org}) lv ON lv.account_id = e.id`
    : '';
  // Labelled, the label value is a column of the entity, so filters on campaignLabel.value see it.
  const entitySource = levelEntities(level.path, org, d);
  const source = label ? `(SELECT e.*, lv.label_value FROM (${entitySource}) e${labelled})` : `(${entitySource})`;
  return {
    entities: `SELECT e.* FROM ${source} e${entityWhere.length > 0 ? ` WHERE ${entityWhere.join(' AND ')}` : ''}`,
    label,
    narrowed: entityWhere.length > 0,
  };
}
