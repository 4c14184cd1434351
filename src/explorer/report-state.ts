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
  // URLSearchParams writes a space as "+": %20 reads the same everywhere a URL is pasted.
  return params.toString().replaceAll('+', '%20');
}
