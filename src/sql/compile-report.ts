import { FACT_MEASURES, measuresOf, MONEY_MEASURES, SHARE_MEASURES, sourceOf, type BaseMeasure, type FactMeasure, type ShareMeasure, type StatisticDefinition } from '../catalog/statistics.js';
import type { SegmentDefinition } from '../catalog/segments.js';
import { NO_LIMIT, type ConditionNode, type Operand, type PlannedFormula, type ReportPlan, type ValueNode } from '../planner/report-plan.js';
import type { SqlValue } from './sql-value.js';

/** The page query and, when asked, the totals query: the same CTEs, every value a bound parameter. */
export interface CompiledReport {
  readonly sql: string;
  readonly totalsSql: string | undefined;
  readonly params: readonly SqlValue[];
  /** The totals query binds only what the CTEs and the filter bind (the page binds sort, formulas and paging after). */
  readonly totalsParams: readonly SqlValue[];
}

/** Output column names of the page query (never user text). */
export const statisticColumn = (i: number) => `st_${i}`;
export const formulaColumn = (i: number) => `fm_${i}`;
export const segmentColumn = (i: number) => `seg_${i}`;
export const TOTAL_COLUMN = '__total';
/** Totals query: the distinct currencies of the summed rows, sorted, comma-joined (null without rows). */
export const CURRENCIES_COLUMN = '__currencies';

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
const sumColumn = (m: BaseMeasure) => `s_${m}`;

/**
 * Reach of the runs in each partition: the length of their union. Sorted by start, a run adds
 * what lies beyond the furthest end of the runs before it (gaps and islands in one window pass;
 * a month of a scale-10 organization's runs by day: 23 ms).
 */
function unionLength(runs: string, partition: string): string {
  return `SELECT ${partition ? `${partition}, ` : ''}coalesce(sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from)))), 0) AS ${sumColumn('reach')}
    FROM (SELECT u.*, max(u.user_to) OVER (PARTITION BY ${partition ? `${partition}, ` : ''}u.pa ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
            FROM ${runs}) ${partition ? 'GROUP BY ALL' : ''}`;
}

/**
 * ReportPlan -> SQL for DuckDB, pure. Shape: entities of the level (organization, name and
 * entity filters) -> daily sums of the fact table (organization, date range, fact filters) ->
 * money per day (accounts: the day's FX rate into the account currency; costWithMarkup: the
 * day's markup) -> buckets per entity and segments -> one row per entity (LEFT JOIN, zeros,
 * without segments) or per active bucket -> bucket filter, sort with id as the last tie-break,
 * page, and the total count as a window.
 */
export function compileReport(plan: ReportPlan): CompiledReport {
  return compile(plan, 'page') as CompiledReport;
}

/** The formats a report can be exported in (DESIGN D3: DuckDB renders them). */
export type ExportFormat = 'csv' | 'ndjson' | 'parquet';

export interface CompiledExport {
  /** One SELECT of the whole result (or the asked page), in the order of the JSON form. */
  readonly sql: string;
  readonly params: readonly SqlValue[];
  /** Output column names; for ndjson the one column `line` holding a row's JSON text. */
  readonly columns: readonly string[];
}

/**
 * The export SELECT: CSV and Parquet get flat columns named like the JSON paths
 * (`statistics.clicks`, `segments.day`), labels, images and specificFields as JSON text; NDJSON
 * gets one JSON text per row shaped exactly like the JSON form's rows.
 */
export function compileExport(plan: ReportPlan, format: ExportFormat): CompiledExport {
  return compile(plan, format) as CompiledExport;
}

/**
 * A JSON page in parts: one result row per PAGE_PART_ROWS rows of the page, in page order, with
 * `part` (those rows' JSON texts joined by commas, UTF-8, and after the first part led by a
 * comma, so that the parts laid end to end are the JSON array's content), `bytes` (its length)
 * and `total` (rows of the whole result). An empty page has no part.
 */
export function compileJsonPage(plan: ReportPlan): CompiledExport {
  return compile(plan, 'jsonPage') as CompiledExport;
}

/**
 * When the plan converts money, columns of compileJsonPage's parts (after part, bytes, total), of
 * the totals query and of compileFxEstimates: of the rows they cover (a part's, all filtered rows),
 * the first and last day on which money was converted between two currencies at a rate that is
 * not a published one (YYYY-MM-DD), and those rates' currencies (comma-joined, repeats possible).
 */
export const ESTIMATE_COLUMNS = ['est_first', 'est_last', 'est_currencies'] as const;

/**
 * For exports, whose warnings go in a header before the first byte: one row with ESTIMATE_COLUMNS
 * over the whole filtered result; undefined when the plan converts no money.
 */
export function compileFxEstimates(plan: ReportPlan): (CompiledExport & { readonly gate: CompiledExport }) | undefined {
  const compiled = compile(plan, 'estimates') as CompiledExport;
  return compiled.sql === '' ? undefined : { ...compiled, gate: estimatedRatesGate(plan) };
}

/**
 * Whether any rate the plan could convert with in its range is not published: over fx_rates and
 * the organization's currencies only (a few hundred rows), so an export where every rate is
 * published skips the estimate query over the facts (40% of a 400-day campaign export's time).
 */
function estimatedRatesGate(plan: ReportPlan): CompiledExport {
  const targets = plan.currency === undefined ? 'SELECT currency FROM accounts WHERE organization_id = $1::BIGINT' : 'SELECT $4::VARCHAR';
  return {
    sql: `SELECT EXISTS (SELECT 1 FROM fx_rates WHERE day BETWEEN $2::DATE AND $3::DATE AND NOT published
             AND currency IN (SELECT currency FROM adplatform_accounts WHERE organization_id = $1::BIGINT UNION ${targets})) AS estimated`,
    params: [plan.organizationId, plan.from, plan.to, ...(plan.currency === undefined ? [] : [plan.currency])],
    columns: ['estimated'],
  };
}

/**
 * Rows per part of a JSON page (~50 KB of keyword rows). A 10,000-row page rendered as one text
 * reached JS as one 3.4 MB buffer that lived as long as its slowest write, so 16 concurrent pulls
 * forced a major GC every few pulls (10-40 ms pauses); parts are copied out one at a time as the
 * socket drains. DuckDB also builds the parts in parallel: the pull went from 67 to 33-43 ms.
 */
export const PAGE_PART_ROWS = 128;

function compile(plan: ReportPlan, mode: 'page' | 'jsonPage' | 'estimates' | ExportFormat): CompiledReport | CompiledExport {
  const params: SqlValue[] = [plan.organizationId, plan.from, plan.to];
  const bind = (value: SqlValue) => {
    params.push(value);
    return `$${params.length}`;
  };
  const level = plan.level;
  // `currency`: rows show it, and their money is converted into it (bound before the CTEs, which the totals query shares).
  const target = plan.currency === undefined ? undefined : `${bind(plan.currency)}::VARCHAR`;

  const entityWhere: string[] = [];
  if (plan.endpoint.platform !== undefined) entityWhere.push(`e.${platformColumn(plan)} = ${bind(plan.endpoint.platform)}`);
  if (plan.namePattern !== undefined) entityWhere.push(`e.${level.nameParameter === 'text' ? 'text' : 'name'} LIKE ${bind(plan.namePattern)} ESCAPE '\\'`);
  if (plan.entityFilter) entityWhere.push(condition(plan.entityFilter, 'e', plan, bind));
  // /accounts/campaign-labels/name/{name}: an account once per value of the label on campaigns of its platform accounts.
  const label = plan.campaignLabel === undefined ? undefined : bind(plan.campaignLabel.stored);
  const labelled = label
    ? ` JOIN (SELECT DISTINCT l.account_id, cl.value AS label_value FROM account_adplatform_links l
               JOIN campaigns c ON c.adplatform_account_id = l.adplatform_account_id
               JOIN campaign_labels cl ON cl.campaign_id = c.id
              WHERE cl.name = ${label} AND c.organization_id = $1::BIGINT) lv ON lv.account_id = e.id`
    : '';
  // Labelled, the label value is a column of the entity, so filters on campaignLabel.value see it.
  const source = label ? `(SELECT e.*, lv.label_value FROM (${level.entities}) e${labelled})` : `(${level.entities})`;
  const entities = `SELECT e.* FROM ${source} e${entityWhere.length > 0 ? ` WHERE ${entityWhere.join(' AND ')}` : ''}`;

  const factWhere = ['f.organization_id = $1::BIGINT', 'f.day BETWEEN $2::DATE AND $3::DATE'];
  if (plan.factFilter) factWhere.push(condition(plan.factFilter, 'f', plan, bind));
  if (level.factKey && entityWhere.length > 0) factWhere.push(`f.${level.factKey} IN (SELECT id FROM entities)`);
  const byDevice = plan.segments.some((s) => s.key === 'deviceType');
  const measures = usedMeasures(plan);
  const withMarkup = measures.has('costWithMarkup');
  const withShares = [...measures].some((m) => sourceOf(m) === 'impressionShare');
  const withReach = measures.has('reach');
  const withMoney = [...measures].some((m) => MONEY_MEASURES.has(m));
  // Lower levels keep the platform account's currency unless `currency` asks for another and money is read.
  const convertLower = level.factKey !== null && target !== undefined && withMoney;
  // Accounts convert whenever they read money; the days converted at estimated rates are tracked for the warning.
  const tracksEstimates = withMoney && (level.factKey === null || convertLower);
  // Days matter for FX (accounts), markups and time segments; otherwise one row per entity is enough.
  const byDay = level.factKey === null || withMarkup || plan.segments.some((s) => s.key !== 'deviceType');
  // Group by as few keys as the plan needs: a second BIGINT key made the aggregation ~3x slower
  // (7 -> 19 ms on a month of a scale-10 organization), so the platform account is only kept where
  // it leads to an account (accounts: FX and links; costWithMarkup: the markup's account).
  const keys = [
    ...(level.factKey ? [`f.${level.factKey} AS entity_id`] : []),
    ...(label ? ['cl.value AS label_value'] : []),
    ...(level.factKey === null || withMarkup ? ['f.adplatform_account_id AS pa'] : []),
    ...(byDay ? ['f.day'] : []),
    ...(byDevice ? ['f.device'] : []),
  ];
  const daily = `SELECT ${keys.join(', ')},
      ${Object.values(FACT_SUM_COLUMNS)
        .map((c) => `sum(f.${c}) AS ${c}`)
        .join(', ')}
    FROM ${level.factTable} f${label ? ` JOIN campaign_labels cl ON cl.campaign_id = f.campaign_id AND cl.name = ${label}` : ''}
   WHERE ${factWhere.join(' AND ')} GROUP BY ALL`;

  const money = (column: string, factor: string) => `d.${column} * ${factor}`;
  let buckets: string;
  if (level.factKey === null) {
    // Accounts: every linked platform account's days, converted at the day's rate into the account
    // currency, or straight into the asked one (same day's rates).
    const factor = '(ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)';
    // A conversion between two currencies of which one rate is not published that day (EUR's always is).
    const converted = 'p.currency <> ra.currency';
    const estimates = tracksEstimates
      ? `, CASE WHEN ${converted} AND NOT (ra.published AND rp.published) THEN d.day END AS est_day,
         nullif(concat_ws(',', CASE WHEN ${converted} AND NOT rp.published THEN p.currency END, CASE WHEN ${converted} AND NOT ra.published THEN ra.currency END), '') AS est_currencies`
      : '';
    buckets = `SELECT l.account_id AS entity_id, d.*, ${money('cost', factor)} AS m_cost, ${money('conversion_value', factor)} AS m_conversion_value,
        ${withMarkup ? `${money('cost', factor)} * (1 + coalesce(mk.rate, 0)::DOUBLE)` : 'NULL'} AS m_cost_with_markup${estimates}
      FROM daily d
      JOIN account_adplatform_links l ON l.adplatform_account_id = d.pa
      JOIN entities e ON e.id = l.account_id${label ? ' AND e.label_value = d.label_value' : ''}
      JOIN adplatform_accounts p ON p.id = d.pa
      LEFT JOIN fx_rates ra ON ra.day = d.day AND ra.currency = ${target ?? 'e.currency'} AND ra.day BETWEEN $2::DATE AND $3::DATE
      LEFT JOIN fx_rates rp ON rp.day = d.day AND rp.currency = p.currency AND rp.day BETWEEN $2::DATE AND $3::DATE
      ${withMarkup ? markupJoin('l.account_id') : ''}`;
  } else if (convertLower) {
    // Converted lower levels with markups: the day's factor of the row's platform account (pa_rates).
    buckets = `SELECT d.*, ${money('cost', 'x.factor')} AS m_cost, ${money('conversion_value', 'x.factor')} AS m_conversion_value,
        ${money('cost', 'x.factor')} * (1 + coalesce(mk.rate, 0)::DOUBLE) AS m_cost_with_markup,
        x.est_day, x.src_est, x.tgt_est
      FROM daily d
      LEFT JOIN pa_rates x ON x.pa = d.pa AND x.day = d.day
      LEFT JOIN (SELECT adplatform_account_id, min(account_id) AS account_id FROM account_adplatform_links GROUP BY ALL) ma ON ma.adplatform_account_id = d.pa ${markupJoin('ma.account_id')}`;
  } else {
    // Lower levels keep the platform account's currency; the markup is that of its first linked account.
    buckets = `SELECT d.*, d.cost AS m_cost, d.conversion_value AS m_conversion_value,
        ${withMarkup ? 'd.cost * (1 + coalesce(mk.rate, 0))' : 'NULL'} AS m_cost_with_markup
      FROM daily d
      ${withMarkup ? `LEFT JOIN (SELECT adplatform_account_id, min(account_id) AS account_id FROM account_adplatform_links GROUP BY ALL) ma ON ma.adplatform_account_id = d.pa ${markupJoin('ma.account_id')}` : ''}`;
  }
  // Per platform account and day of the range: the factor from its currency into the asked one, and
  // whether either rate is not a published one (a conversion within one currency estimates nothing).
  const paRates = `SELECT pa, day, factor, src_est, tgt_est, CASE WHEN src_est OR tgt_est THEN day END AS est_day
    FROM (SELECT p.id AS pa, rs.day, rt.units_per_eur::DOUBLE / rs.units_per_eur::DOUBLE AS factor,
                 p.currency <> ${target} AND NOT rs.published AS src_est, p.currency <> ${target} AND NOT rt.published AS tgt_est
            FROM adplatform_accounts p
            JOIN fx_rates rs ON rs.currency = p.currency AND rs.day BETWEEN $2::DATE AND $3::DATE
            LEFT JOIN fx_rates rt ON rt.currency = ${target} AND rt.day = rs.day
           WHERE p.organization_id = $1::BIGINT)`;

  const segmentSelect = plan.segments.map((s, i) => `${s.sql('b.day', 'b.device')} AS ${segmentColumn(i)}`);
  const sumSelect = FACT_MEASURES.map((m) => `sum(${bucketColumn(m)}) AS ${sumColumn(m)}`);
  // Per bucket: the first and last day converted at an estimated rate, and which rates (accounts:
  // the currencies; lower levels: whether the source's or the target's, the row knows both).
  const bucketEstimates = (day: string, source: string) =>
    !tracksEstimates
      ? ''
      : `, min(${day}) AS est_first, max(${day}) AS est_last, ${
          // list_distinct(list()): a DISTINCT aggregate cost ~3 ms of a 10 ms accounts report, this ~0.5 ms.
          level.factKey === null ? `nullif(array_to_string(list_distinct(list(${source}.est_currencies)), ','), '') AS est_currencies` : `bool_or(${source}.src_est) AS src_est, bool_or(${source}.tgt_est) AS tgt_est`
        }`;
  // Without markups the buckets are summed straight from the facts: one aggregation instead of two
  // (a month of campaigns on scale 10: 19 -> 9 ms); converted money then takes the day's factor of
  // the platform account from pa_rates, a few hundred rows.
  const direct = level.factKey !== null && !withMarkup;
  const directSum = (m: FactMeasure) =>
    m === 'costWithMarkup' ? 'NULL::DOUBLE' : convertLower && MONEY_MEASURES.has(m) ? `sum(f.${FACT_SUM_COLUMNS[m]} * x.factor)` : `sum(f.${FACT_SUM_COLUMNS[m]})`;
  const sums = direct
    ? `SELECT f.${level.factKey} AS entity_id${plan.segments.map((seg, i) => `, ${seg.sql('f.day', 'f.device')} AS ${segmentColumn(i)}`).join('')},
        ${FACT_MEASURES.map((m) => `${directSum(m)} AS ${sumColumn(m)}`).join(', ')}${bucketEstimates('x.est_day', 'x')}
        FROM ${level.factTable} f${convertLower ? ' LEFT JOIN pa_rates x ON x.pa = f.adplatform_account_id AND x.day = f.day' : ''} WHERE ${factWhere.join(' AND ')} GROUP BY ALL`
    : `SELECT b.entity_id${label ? ', b.label_value' : ''}${segmentSelect.map((s) => `, ${s}`).join('')}, ${sumSelect.join(', ')}${bucketEstimates('b.est_day', 'b')} FROM buckets b GROUP BY ALL`;

  // Impression share and reach come from their own fact tables, per entity and segments like the sums.
  const segmentKeys = (alias: string) => plan.segments.map((seg, i) => `, ${seg.sql(`${alias}.day`, `${alias}.device`)} AS ${segmentColumn(i)}`).join('');
  const shares = `SELECT f.${level.factKey} AS entity_id${segmentKeys('f')},
      ${SHARE_MEASURES.map((m) => `sum(f.${SHARE_SUM_COLUMNS[m]}) AS ${sumColumn(m)}`).join(', ')}
    FROM fact_impression_share_daily f WHERE ${factWhere.join(' AND ')} GROUP BY ALL`;
  // FACEBOOK reports no device and one network (supplement 2: UNKNOWN, SOCIAL); the runs carry
  // them so that device and network filters and the DeviceType segment mean what they mean on its facts.
  const runs = `SELECT f.${level.factKey} AS entity_id${segmentKeys('f')}, f.adplatform_account_id AS pa, f.user_from, f.user_to
    FROM (SELECT *, 'UNKNOWN'::device_type AS device, 'SOCIAL'::network_type AS network FROM fact_audience_runs) f WHERE ${factWhere.join(' AND ')}`;
  const segmentNames = plan.segments.map((_, i) => segmentColumn(i));
  const reach = unionLength('runs u', ['entity_id', ...segmentNames].join(', '));

  const rowMeasures: BaseMeasure[] = [...FACT_MEASURES, ...(withShares ? SHARE_MEASURES : []), ...(withReach ? ['reach' as const] : [])];
  const joinKind = plan.segments.length === 0 ? 'LEFT JOIN' : 'JOIN';
  const sameBucket = (alias: string) => [`${alias}.entity_id = e.id`, ...segmentNames.map((c) => `${alias}.${c} = s.${c}`)].join(' AND ');
  const rowEstimates = !tracksEstimates
    ? ''
    : `, s.est_first AS __est_first, s.est_last AS __est_last, ${
        level.factKey === null ? 's.est_currencies' : `nullif(concat_ws(',', CASE WHEN s.src_est THEN e.currency END, CASE WHEN s.tgt_est THEN ${target} END), '')`
      } AS __est_currencies`;
  // With `currency` every row is in it; `e.currency` (filters on `currency`) stays the entity's own.
  const rows = `SELECT e.*${target ? ` REPLACE (${target} AS currency)` : ''}${segmentNames.map((c) => `, s.${c}`).join('')},
      ${rowMeasures.map((m) => `coalesce(${sourceOf(m) === 'facts' ? 's' : sourceOf(m) === 'reach' ? 'rc' : 'sh'}.${sumColumn(m)}, 0) AS ${sumColumn(m)}`).join(', ')}${rowEstimates}
    FROM entities e ${joinKind} sums s ON s.entity_id = e.id${label ? ' AND s.label_value = e.label_value' : ''}
    ${withShares ? `LEFT JOIN shares sh ON ${sameBucket('sh')}` : ''}
    ${withReach ? `LEFT JOIN reach rc ON ${sameBucket('rc')}` : ''}`;

  const ctes = `WITH entities AS (${entities}),${convertLower ? `\n    pa_rates AS (${paRates}),` : ''}
    ${direct ? '' : `daily AS (${daily}), buckets AS (${buckets}),`}
    sums AS (${sums}),
    ${withShares ? `shares AS (${shares}),` : ''}
    ${withReach ? `runs AS (${runs}), reach AS (${reach}),` : ''}
    report_rows AS (${rows})`;
  const where = plan.bucketFilter ? ` WHERE ${condition(plan.bucketFilter, 'r', plan, bind)}` : '';
  const totalsParams = [...params];
  // The estimated conversions of a set of rows (`alias`): first day, last day, currencies. A part of
  // a page has at most PAGE_PART_ROWS rows of a few codes each: not DISTINCT there (the caller
  // dedupes; a DISTINCT aggregate cost ~1.5 ms of a 10 ms campaign report); over a whole result, DISTINCT.
  const estimateAggregates = (alias: string, distinct: boolean) => [
    `strftime(min(${alias}.__est_first), '%Y-%m-%d')`,
    `strftime(max(${alias}.__est_last), '%Y-%m-%d')`,
    `string_agg(${distinct ? 'DISTINCT ' : ''}${alias}.__est_currencies, ',')`,
  ];

  // A segment sorts by its own order where it has one (DayOfWeek: MONDAY..SUNDAY), in sorts and tie-breaks alike.
  const segmentOrder = (segment: SegmentDefinition) => {
    const column = `r.${segmentColumn(plan.segments.indexOf(segment))}`;
    return segment.order ? segment.order(column) : column;
  };
  const orderKeys: ReadonlyArray<readonly [sql: string, direction: string]> = [
    ...plan.sort.map(
      (key) =>
        [
          key.value.kind === 'ref' && key.value.operand.kind === 'segment' ? segmentOrder(key.value.operand.segment) : value(key.value, 'r', plan, bind),
          `${key.descending ? 'DESC' : 'ASC'} NULLS LAST`,
        ] as const,
    ),
    // Supplement 1 and 5: by id unless a sort says otherwise, ties by id; then the buckets of an entity in segment order.
    ['r.id', 'ASC'] as const,
    ...(label ? [['r.label_value', 'ASC'] as const] : []),
    ...plan.segments.map((segment) => [segmentOrder(segment), 'ASC'] as const),
  ];
  const order = orderKeys.map(([sql, direction]) => `${sql} ${direction}`);
  if (mode === 'estimates') {
    // An export's rows: the whole filtered result, or the page it asks for.
    const paged = plan.limit === NO_LIMIT && plan.offset === 0 ? '' : ` ORDER BY ${order.join(', ')} LIMIT ${bind(plan.limit)}::BIGINT OFFSET ${bind(plan.offset)}::BIGINT`;
    const sql = tracksEstimates
      ? `${ctes} SELECT ${estimateAggregates('x', true).map((sql, i) => `${sql} AS ${ESTIMATE_COLUMNS[i]}`).join(', ')}
           FROM (SELECT r.__est_first, r.__est_last, r.__est_currencies FROM report_rows r${where}${paged}) x`
      : '';
    // Unpaged, the sort's own bound values (a formula's numbers) are not in this SQL: bind only what it uses.
    return { sql, params: paged === '' ? totalsParams : params, columns: [...ESTIMATE_COLUMNS] };
  }
  if (mode === 'jsonPage') {
    // The page as JSON text in parts, rendered by DuckDB (DESIGN D3): 8,214 keyword rows took
    // ~200 ms of event-loop time as JS objects, against a 28 ms query. The page's sort keys go
    // along so that string_agg and the part numbers order just the page; a row_number() window
    // over the whole result ordered every row of it first (1-3 ms of a 10-20 ms report).
    const columns = exportColumns(plan, label !== undefined, true, bind);
    const flat = `SELECT ${columns.map(([, sql], i) => `${sql} AS c${i}`).join(', ')}, ${orderKeys.map(([sql], i) => `${sql} AS k${i}`).join(', ')}, count(*) OVER () AS total${
      tracksEstimates ? ', r.__est_first, r.__est_last, r.__est_currencies' : ''
    }
      FROM report_rows r${where}
      ORDER BY ${order.join(', ')} LIMIT ${bind(plan.limit)}::BIGINT OFFSET ${bind(plan.offset)}::BIGINT`;
    const pageOrder = (alias: string) => orderKeys.map(([, direction], i) => `${alias}.k${i} ${direction}`).join(', ');
    const line = `to_json(${nestedStruct(columns.map(([name], i): [string, string] => [name, `sorted.c${i}`]))})`;
    // A page that fits one part skips the numbering window (1-3 ms of a small report).
    const partNo = plan.limit <= PAGE_PART_ROWS ? '0' : `(row_number() OVER (ORDER BY ${pageOrder('page')}) - 1) // ${PAGE_PART_ROWS}`;
    // As UTF-8 bytes (BLOB), not VARCHAR: the service sends them as they are, where a string costs
    // a decode into JS, a byte count and an encode again on the event loop (~10 ms per 3.4 MB page).
    // Parts after the first start with the comma that separates them, so the parts laid end to end are the array's content.
    // Each part says which of its rows' money was converted at estimated rates (the service joins the parts' answers).
    const estimates = tracksEstimates ? ESTIMATE_COLUMNS : [];
    const parts = `SELECT sorted.part_no, encode(CASE WHEN sorted.part_no > 0 THEN ',' ELSE '' END || string_agg(${line}::VARCHAR, ',' ORDER BY ${pageOrder('sorted')})) AS part, max(sorted.total) AS total${
      tracksEstimates ? estimateAggregates('sorted', false).map((sql, i) => `, ${sql} AS ${ESTIMATE_COLUMNS[i]}`).join('') : ''
    }
      FROM (SELECT page.*, ${partNo} AS part_no FROM (${flat}) page) sorted GROUP BY sorted.part_no`;
    const sql = `${ctes} SELECT part, octet_length(part) AS bytes, total${estimates.map((c) => `, ${c}`).join('')} FROM (${parts}) ORDER BY part_no`;
    return { sql, params, columns: ['part', 'bytes', 'total', ...estimates] };
  }
  if (mode !== 'page') {
    const columns = exportColumns(plan, label !== undefined, mode === 'ndjson', bind);
    const page = plan.limit === NO_LIMIT && plan.offset === 0 ? '' : ` LIMIT ${bind(plan.limit)}::BIGINT OFFSET ${bind(plan.offset)}::BIGINT`;
    const flat = `SELECT ${columns.map(([name, sql], i) => `${sql} AS ${mode === 'ndjson' ? `c${i}` : quoteName(name)}`).join(', ')}
      FROM report_rows r${where}
      ORDER BY ${order.join(', ')}${page}`;
    // NDJSON text is built after the sort (a projection keeps the order): sorting 5 M rows with
    // their JSON text attached carried 2.3 GB of strings through the sort.
    const sql =
      mode === 'ndjson'
        ? `${ctes} SELECT to_json(${nestedStruct(columns.map(([name], i): [string, string] => [name, `sorted.c${i}`]))}) AS line FROM (${flat}) sorted`
        : `${ctes} ${flat}`;
    return { sql, params, columns: mode === 'ndjson' ? ['line'] : columns.map(([name]) => name) };
  }
  const outputs = [
    ...plan.statistics.map((s, i) => `${statisticOutput(s, 'r')} AS ${statisticColumn(i)}`),
    ...plan.formulas.map((f, i) => `${formulaOutput(f, plan, bind)} AS ${formulaColumn(i)}`),
  ];
  // Only what the response shows: converting unused columns (the DECIMAL sums above all) into JS
  // values cost more main-thread time than the rest of a small report.
  const shown = [
    ...level.rowKeys.map((key) => `r."${key}"`),
    ...(label ? ['r.label_value'] : []),
    ...plan.segments.map((_, i) => `r.${segmentColumn(i)}`),
    ...(plan.embed.has('customFields') ? Array.from({ length: 30 }, (_, i) => `r.field${i + 1}`) : []),
    ...(plan.embed.has('images') ? ['r."__images"'] : []),
    ...(plan.embed.has('specificFields') ? ['r."__specificFields"', 'r."adPlatformAccountType"'] : []),
  ];
  const sql = `${ctes}
    SELECT ${[...new Set(shown)].join(', ')}${outputs.map((o) => `, ${o}`).join('')}, count(*) OVER () AS ${TOTAL_COLUMN}
      FROM report_rows r${where}
     ORDER BY ${order.join(', ')}
     LIMIT ${bind(plan.limit)}::BIGINT OFFSET ${bind(plan.offset)}::BIGINT`;

  // Totals over the whole filtered result: the statistics of the summed sums, never a sum of ratios.
  // Reach of the whole result is that of the union of its buckets' runs, not the sum of their reach.
  const totalReach = unionLength(`runs u SEMI JOIN filtered fr ON ${['fr.id = u.entity_id', ...segmentNames.map((c) => `fr.${c} = u.${c}`)].join(' AND ')}`, '');
  // The rows' currencies say whether the money sums mean anything (one currency) or not (several).
  const totalsSql = plan.totals
    ? `${ctes}, filtered AS (SELECT * FROM report_rows r${where})
       SELECT ${plan.statistics.map((s, i) => `${statisticOutput(s, 'r')} AS ${statisticColumn(i)}`).join(', ')}, r.${CURRENCIES_COLUMN}${
         tracksEstimates ? ESTIMATE_COLUMNS.map((c) => `, r.${c}`).join('') : ''
       }
         FROM (SELECT ${rowMeasures.map((m) => (m === 'reach' ? `(${totalReach}) AS ${sumColumn(m)}` : `coalesce(sum(${sumColumn(m)}), 0) AS ${sumColumn(m)}`)).join(', ')},
                      string_agg(DISTINCT currency, ',' ORDER BY currency) AS ${CURRENCIES_COLUMN}${
                        tracksEstimates ? estimateAggregates('filtered', true).map((sql, i) => `, ${sql} AS ${ESTIMATE_COLUMNS[i]}`).join('') : ''
                      } FROM filtered) r`
    : undefined;
  return { sql, totalsSql, params, totalsParams };
}

/** A JSON path as a column name or struct key; the names come from the catalogue and formula names (letters, digits, _). */
function quoteName(name: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)?$/.test(name)) throw new Error(`not a column name: ${name}`);
  return `"${name}"`;
}

/** Export columns as [JSON path, SQL], in the order of the JSON form's rows. */
function exportColumns(plan: ReportPlan, labelled: boolean, nested: boolean, bind: (v: SqlValue) => string): Array<[string, string]> {
  const json = (sql: string) => (nested ? sql : `(${sql})::VARCHAR`);
  const labels = plan.level.labels;
  return [
    ...plan.level.rowKeys.map((key): [string, string] => [key, `r."${key}"`]),
    ...(labelled ? ([['campaignLabel.name', `${bind(plan.campaignLabel!.name)}::VARCHAR`], ['campaignLabel.value', 'r.label_value']] as Array<[string, string]>) : []),
    ...plan.segments.map((s, i): [string, string] => [`segments.${s.key}`, `r.${segmentColumn(i)}`]),
    ...plan.statistics.map((s): [string, string] => [`statistics.${s.name}`, statisticOutput(s, 'r')]),
    ...plan.formulas.map((f): [string, string] => [`formulas.${f.name}`, formulaOutput(f, plan, bind)]),
    ...(plan.embed.has('customFields') ? Array.from({ length: 30 }, (_, i): [string, string] => [`customFields.field${i + 1}`, `r.field${i + 1}`]) : []),
    ...(plan.embed.has('images') ? [['images', json(`coalesce(to_json(r."__images"), '[]'::JSON)`)] as [string, string]] : []),
    ...(plan.embed.has('specificFields') ? [['specificFields', json(`CASE WHEN r."adPlatformAccountType" = 'FACEBOOK' THEN r."__specificFields"::JSON END`)] as [string, string]] : []),
    ...(plan.embed.has('labels') && labels
      ? [['labels', json(`coalesce((SELECT json_group_object(lb.name, lb.value) FROM ${labels.table} lb WHERE lb.${labels.key} = r.id AND lb.name NOT LIKE 'sys.%'), '{}'::JSON)`)] as [string, string]]
      : []),
  ];
}

/** `{id, name, segments: {day}, statistics: {...}}` from flat [path, SQL] columns. */
function nestedStruct(columns: ReadonlyArray<[string, string]>): string {
  const groups = new Map<string, Array<[string, string]>>();
  const fields: string[] = [];
  for (const [name, sql] of columns) {
    const [head, tail] = name.split('.') as [string, string | undefined];
    if (tail === undefined) {
      fields.push(`${quoteName(head)} := ${sql}`);
      continue;
    }
    if (!groups.has(head)) {
      groups.set(head, []);
      fields.push(head);
    }
    groups.get(head)!.push([tail, sql]);
  }
  const pack = (list: ReadonlyArray<[string, string]>) => `struct_pack(${list.map(([key, sql]) => `${quoteName(key)} := ${sql}`).join(', ')})`;
  return `struct_pack(${fields.map((f) => (groups.has(f) ? `${quoteName(f)} := ${pack(groups.get(f)!)}` : f)).join(', ')})`;
}

function markupJoin(accountColumn: string): string {
  return `LEFT JOIN markups mk ON mk.account_id = ${accountColumn} AND d.day BETWEEN mk.start_date AND coalesce(mk.end_date, DATE '9999-12-31')`;
}

function bucketColumn(m: FactMeasure): string {
  if (m === 'cost') return 'b.m_cost';
  if (m === 'conversionValue') return 'b.m_conversion_value';
  if (m === 'costWithMarkup') return 'b.m_cost_with_markup';
  return `b.${FACT_SUM_COLUMNS[m]}`;
}

/** The column of the endpoint's platform type in its entities (FACEBOOK and Google Ads endpoints). */
function platformColumn(plan: ReportPlan): string {
  return plan.level.fields.find((f) => f.name === 'adPlatformType')!.column;
}

/** A statistic over the row's sums, rounded once at the edge: money and decimals to micros. */
function statisticOutput(statistic: StatisticDefinition, alias: string): string {
  const sql = statisticSql(statistic, alias);
  if (statistic.type === 'Integer') return `(${sql})::BIGINT`;
  if (statistic.type === 'Ratio') return `(${sql})::DOUBLE`;
  return `round((${sql})::DOUBLE, 6)`;
}

function statisticSql(statistic: StatisticDefinition, alias: string): string {
  return statistic.sql((m) => `${alias}.${sumColumn(m)}`);
}

function formulaOutput(formula: PlannedFormula, plan: ReportPlan, bind: (v: SqlValue) => string): string {
  const sql = value(formula.value, 'r', plan, bind);
  switch (formula.type) {
    case 'Integer':
      // Past BIGINT an Integer formula has no value (null), rather than failing the report.
      return `TRY_CAST(round((${sql})::DOUBLE) AS BIGINT)`;
    case 'Decimal':
    case 'Money':
      return `round((${sql})::DOUBLE, 6)`;
    case 'Percentage':
      return `(${sql})::DOUBLE`;
  }
}

/** The base measures the statistics, formulas, filter and sort of the plan read. */
function usedMeasures(plan: ReportPlan): Set<BaseMeasure> {
  const refs: Operand[] = [];
  const collect = (node: ValueNode | ConditionNode): void => {
    switch (node.kind) {
      case 'ref':
        refs.push(node.operand);
        break;
      case 'arithmetic':
      case 'compare':
      case 'logical':
        collect(node.left);
        collect(node.right);
        break;
      case 'negate':
      case 'not':
        collect(node.operand);
        break;
      case 'function':
        node.args.forEach(collect);
        break;
      case 'isNull':
      case 'in':
      case 'text':
        collect(node.value);
        break;
      case 'literal':
      case 'linkedAccount':
        break;
    }
  };
  plan.formulas.forEach((f) => collect(f.value));
  if (plan.bucketFilter) collect(plan.bucketFilter);
  plan.sort.forEach((k) => collect(k.value));
  const statistics = [...plan.statistics, ...refs.flatMap((r) => (r.kind === 'statistic' ? [r.statistic] : []))];
  return new Set(statistics.flatMap((s) => [...measuresOf(s)]));
}

function operand(op: Operand, alias: string, plan: ReportPlan, bind: (v: SqlValue) => string): string {
  switch (op.kind) {
    case 'statistic':
      return `(${statisticSql(op.statistic, alias)})`;
    case 'formula':
      return `(${value(plan.formulas[op.index]!.value, alias, plan, bind)})`;
    case 'dimension':
      return `${alias}.${op.column}`;
    case 'customField':
      return `${alias}.${op.column}`;
    case 'label': {
      const labels = plan.level.labels!;
      return `(SELECT lb.value FROM ${labels.table} lb WHERE lb.${labels.key} = ${alias}.id AND lb.name = ${bind(op.name)})`;
    }
    case 'segment':
      return `${alias}.${segmentColumn(plan.segments.indexOf(op.segment))}`;
    case 'fact':
      return `${alias}.${op.column}`;
  }
}

function value(node: ValueNode, alias: string, plan: ReportPlan, bind: (v: SqlValue) => string): string {
  switch (node.kind) {
    case 'literal':
      return node.value === null ? 'NULL' : typeof node.value === 'number' ? `${bind(node.value)}::DOUBLE` : `${bind(node.value)}::VARCHAR`;
    case 'ref':
      return operand(node.operand, alias, plan, bind);
    case 'arithmetic': {
      const left = value(node.left, alias, plan, bind);
      const right = value(node.right, alias, plan, bind);
      return node.op === '/' ? `((${left})::DOUBLE / nullif((${right})::DOUBLE, 0))` : `((${left})::DOUBLE ${node.op} (${right})::DOUBLE)`;
    }
    case 'negate':
      return `(-(${value(node.operand, alias, plan, bind)})::DOUBLE)`;
    case 'function': {
      const args = node.args.map((arg, i) => (node.name === 'if' && i === 0 ? condition(arg as ConditionNode, alias, plan, bind) : `(${value(arg as ValueNode, alias, plan, bind)})::DOUBLE`));
      switch (node.name) {
        case 'min':
          return `least(${args.join(', ')})`;
        case 'max':
          return `greatest(${args.join(', ')})`;
        case 'abs':
          return `abs(${args[0]})`;
        case 'round':
          return args.length === 2 ? `round(${args[0]}, (${args[1]})::INTEGER)` : `round(${args[0]})`;
        case 'if':
          return `(CASE WHEN ${args[0]} THEN ${args[1]} ELSE ${args[2]} END)`;
      }
    }
  }
}

const SQL_COMPARE: Readonly<Record<string, string>> = { '==': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

function condition(node: ConditionNode, alias: string, plan: ReportPlan, bind: (v: SqlValue) => string): string {
  switch (node.kind) {
    case 'compare':
      return `(${value(node.left, alias, plan, bind)} ${SQL_COMPARE[node.op]} ${value(node.right, alias, plan, bind)})`;
    case 'isNull':
      return `(${value(node.value, alias, plan, bind)} IS ${node.negated ? 'NOT ' : ''}NULL)`;
    case 'logical':
      return `(${condition(node.left, alias, plan, bind)} ${node.op === 'and' ? 'AND' : 'OR'} ${condition(node.right, alias, plan, bind)})`;
    case 'not':
      return `(NOT ${condition(node.operand, alias, plan, bind)})`;
    case 'in': {
      const subject = value(node.value, alias, plan, bind);
      const members = node.list.map((v) => (typeof v === 'number' ? `${bind(v)}::DOUBLE` : `${bind(v)}::VARCHAR`));
      const parts = [...(members.length > 0 ? [`${subject} IN (${members.join(', ')})`] : []), ...(node.includesNull ? [`${subject} IS NULL`] : [])];
      return parts.length === 0 ? 'FALSE' : `(${parts.join(' OR ')})`;
    }
    case 'text': {
      const fn = node.fn === 'contains' ? 'contains' : node.fn === 'startsWith' ? 'starts_with' : 'ends_with';
      return `${fn}(${value(node.value, alias, plan, bind)}, ${bind(node.pattern)}::VARCHAR)`;
    }
    case 'linkedAccount': {
      // Ids compare as doubles, so 1.5 matches nothing instead of being cast to 2; the account must be the organization's.
      const ids = node.accountIds === 'any' ? '' : ` AND l.account_id IN (${node.accountIds.map((id) => `${bind(id)}::DOUBLE`).join(', ') || 'NULL'})`;
      const linked = `EXISTS (SELECT 1 FROM account_adplatform_links l JOIN accounts la ON la.id = l.account_id AND la.organization_id = $1::BIGINT
                       WHERE l.adplatform_account_id = ${alias}.${plan.level.platformAccountColumn!}${ids})`;
      return `(${node.negated ? 'NOT ' : ''}${linked})`;
    }
  }
}
