/**
 * A report as the explorer shows it, and its place in the URL: the fragment (`#endpoint=...`),
 * so a view can be shared and reloaded while nothing of it reaches the server's logs. No
 * credential or token is ever part of it.
 */
export interface ReportState {
  /** Path below /reporting/v0/, e.g. `campaigns`. */
  readonly endpoint: string;
  /** A preset (`LAST_30_DAYS`), or undefined for the dates below. */
  readonly dateRange: string | undefined;
  readonly startDate: string;
  readonly endDate: string;
  readonly segments: readonly string[];
  /** Empty: the endpoint's default statistics. */
  readonly statistics: readonly string[];
  readonly filter: string;
  readonly sort: string;
  /** One formula (`name:expression:Type`) per line, as typed. */
  readonly formulas: string;
  /** An ISO 4217 code every row's money is converted into; '' keeps each row's own currency. */
  readonly currency: string;
  readonly limit: number;
  readonly offset: number;
  /** The statistic (or `formulas.<name>`) the chart draws; undefined: the first shown. */
  readonly chart: string | undefined;
  /** The API's `compare`: PREVIOUS_PERIOD, PREVIOUS_YEAR or YYYY-MM-DD..YYYY-MM-DD; absent or '': none. */
  readonly compare?: string;
  /**
   * The rows drilled into, from the top: each a row of `endpoint` opened at the next level (the
   * report is then that level filtered to the last one). The breadcrumb is drawn from it.
   */
  readonly drill?: readonly DrillStep[];
}

export interface DrillStep {
  /** The level the row was in, e.g. `accounts`. */
  readonly endpoint: string;
  readonly id: number;
  readonly name: string;
}

export const PAGE_SIZES = [25, 50, 100, 500, 1000] as const;

export const DEFAULT_STATE: ReportState = {
  endpoint: 'campaigns',
  dateRange: 'LAST_30_DAYS',
  startDate: '',
  endDate: '',
  segments: [],
  statistics: [],
  filter: '',
  sort: '',
  formulas: '',
  currency: '',
  limit: 100,
  offset: 0,
  chart: undefined,
};

const COMPARE = /^(?:PREVIOUS_PERIOD|PREVIOUS_YEAR|\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2})$/;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The state a fragment describes; members it lacks or cannot read keep their defaults. */
export function stateFromHash(hash: string): ReportState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const text = (name: string) => params.get(name) ?? undefined;
  const list = (name: string) =>
    (params.get(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  const count = (name: string, fallback: number, min: number) => {
    const value = Number(params.get(name) ?? Number.NaN);
    return Number.isSafeInteger(value) && value >= min ? value : fallback;
  };
  const startDate = text('startDate') ?? '';
  const endDate = text('endDate') ?? '';
  const customDates = DATE.test(startDate) || DATE.test(endDate);
  const limit = count('limit', DEFAULT_STATE.limit, 1);
  const offset = count('offset', 0, 0);
  const drill = params.getAll('drill').flatMap((step) => {
    const match = /^([a-z/-]+):(\d+):(.*)$/s.exec(step);
    return match ? [{ endpoint: match[1]!, id: Number(match[2]), name: match[3]! }] : [];
  });
  return {
    endpoint: text('endpoint') ?? DEFAULT_STATE.endpoint,
    dateRange: customDates ? undefined : (text('dateRange') ?? DEFAULT_STATE.dateRange),
    startDate: DATE.test(startDate) ? startDate : '',
    endDate: DATE.test(endDate) ? endDate : '',
    segments: list('segments'),
    statistics: list('statistics'),
    filter: text('filter') ?? '',
    sort: text('sort') ?? '',
    formulas: text('formulas') ?? '',
    currency: text('currency') ?? '',
    limit,
    // The service takes 0 or a multiple of limit only.
    offset: offset - (offset % limit),
    chart: text('chart'),
    // Members that came later are left out when the fragment lacks them (a state without them is the same report).
    ...(COMPARE.test(text('compare') ?? '') ? { compare: text('compare')! } : {}),
    ...(drill.length > 0 ? { drill } : {}),
  };
}

/** The fragment of a state, without the `#`: members at their defaults are left out. */
export function hashOfState(state: ReportState): string {
  const params = new URLSearchParams();
  params.set('endpoint', state.endpoint);
  if (state.dateRange !== undefined) params.set('dateRange', state.dateRange);
  else {
    if (state.startDate !== '') params.set('startDate', state.startDate);
    if (state.endDate !== '') params.set('endDate', state.endDate);
  }
  if (state.segments.length > 0) params.set('segments', state.segments.join(','));
  if (state.statistics.length > 0) params.set('statistics', state.statistics.join(','));
  if (state.filter !== '') params.set('filter', state.filter);
  if (state.sort !== '') params.set('sort', state.sort);
  if (state.formulas !== '') params.set('formulas', state.formulas);
  if (state.currency !== '') params.set('currency', state.currency);
  if (state.limit !== DEFAULT_STATE.limit) params.set('limit', String(state.limit));
  if (state.offset !== 0) params.set('offset', String(state.offset));
  if (state.chart !== undefined) params.set('chart', state.chart);
  if (state.compare) params.set('compare', state.compare);
  for (const step of state.drill ?? []) params.append('drill', `${step.endpoint}:${step.id}:${step.name}`);
  // URLSearchParams writes a space as "+": %20 reads the same everywhere a URL is pasted.
  return params.toString().replaceAll('+', '%20');
}
