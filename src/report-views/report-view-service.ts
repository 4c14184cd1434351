import { ENDPOINT_BY_PATH, type ReportEndpoint } from '../catalog/endpoints.js';
import { buildPlan } from '../planner/build-plan.js';
import { normalizeStoredQuery, storedQueryRequest, type StoredQueryInput } from '../reporting/report-request.js';
import { ApiError, badRequest, notFound, unprocessable } from '../shared/errors.js';
import type { Store } from '../store/store.js';
import {
  countReportViews,
  deleteReportView,
  getReportView,
  insertReportView,
  listReportViews,
  reportViewNamed,
  type ReportViewQuery,
  type StoredReportView,
} from './report-view-store.js';

/** Views one organization may keep; a POST beyond is 409 too_many_views. */
export const VIEWS_PER_ORGANIZATION = 500;
export const VIEW_NAME_MAX = 100;

/** A query value as a POST may give it: JSON scalars become their text, a list repeats the parameter. */
export type ReportViewQueryInput = StoredQueryInput;

export interface NewReportView {
  readonly name: string;
  readonly endpoint: string;
  readonly query?: ReportViewQueryInput | undefined;
  readonly chart?: string | null | undefined;
}

/** A view as the API shows it: the stored one and `path`, the report it opens. */
export interface ReportView extends StoredReportView {
  /** `/reporting/v0/<endpoint>?<query>`: the GET the view stands for, its values percent-encoded. */
  readonly path: string;
}

/** The GET a view opens, its parameters in the stored order, each value percent-encoded (a space as %20). */
export function reportPathOf(endpoint: string, query: ReportViewQuery): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query))
    for (const item of typeof value === 'string' ? [value] : value)
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(item)}`);
  return `/reporting/v0/${endpoint}${parts.length === 0 ? '' : `?${parts.join('&')}`}`;
}

const shown = (view: StoredReportView): ReportView => ({ ...view, path: reportPathOf(view.endpoint, view.query) });

/**
 * POST, GET, list and DELETE of /reporting/v0/views (issue 43): saved report requests of an
 * organization, shared by all its clients. Tenant state, so it is served on both stores, also
 * where reports are not (a PostgreSQL store without facts): a view's query is checked by the
 * GET's parser and the planner, which read no data.
 */
export class ReportViewService {
  constructor(
    private readonly db: Store,
    private readonly now: () => Date,
  ) {}

  /**
   * Checks the query exactly as `GET /reporting/v0/<endpoint>` would (its 400s), the chart
   * against the endpoint's statistics and the query's formulas (422), then stores the view under
   * a name no other view of the organization has (409 view_name_taken), at most
   * VIEWS_PER_ORGANIZATION of them (409 too_many_views). Nothing is written on a refusal.
   */
  async create(organizationId: number, clientId: string, input: NewReportView): Promise<ReportView> {
    const endpoint = ENDPOINT_BY_PATH.get(input.endpoint);
    // The route's schema lists the endpoints; a caller bypassing it gets the same answer.
    if (!endpoint)
      throw unprocessable(`view.endpoint "${input.endpoint.slice(0, 100)}" is not a statistics endpoint.`, [
        { field: 'view.endpoint', code: 'invalid_value', message: 'is not a statistics endpoint' },
      ]);
    const query = normalizeStoredQuery(input.query ?? {});
    const formulas = this.checkQuery(endpoint, query, organizationId);
    const chart = input.chart ?? null;
    if (chart !== null) checkChart(endpoint, formulas, chart);
    const stored = await this.db.write('no-report-data', async (tx) => {
      const taken = await reportViewNamed(tx, organizationId, input.name);
      if (taken !== undefined)
        throw new ApiError(
          409,
          'view_name_taken',
          `The organization has a view named "${input.name}" already (id ${taken}); choose another name or delete that one.`,
          [{ field: 'view.name', code: 'taken', message: 'another view of the organization has this name' }],
        );
      if ((await countReportViews(tx, organizationId)) >= VIEWS_PER_ORGANIZATION)
        throw new ApiError(
          409,
          'too_many_views',
          `An organization may keep at most ${VIEWS_PER_ORGANIZATION} views; delete one first.`,
        );
      return insertReportView(tx, {
        organizationId,
        name: input.name,
        endpoint: endpoint.path,
        query,
        chart,
        createdBy: clientId,
        now: this.now(),
      });
    });
    return shown(stored);
  }

  async get(organizationId: number, id: number): Promise<ReportView> {
    const view = await this.db.read((r) => getReportView(r, organizationId, id));
    if (!view) throw notFound(`No view with id ${id} in this organization.`);
    return shown(view);
  }

  async list(organizationId: number, page: { limit: number; offset: number }) {
    const order = this.db.dialect.engine === 'postgres' ? 'collate-c' : 'binary';
    const { total, views } = await this.db.read((r) => listReportViews(r, organizationId, page, order));
    return { total, views: views.map(shown) };
  }

  async delete(organizationId: number, id: number): Promise<void> {
    const deleted = await this.db.write('no-report-data', (tx) => deleteReportView(tx, organizationId, id));
    if (!deleted) throw notFound(`No view with id ${id} in this organization.`);
  }

  /** The GET's own parser and planner over the query as URL text: every rule and every 400 is the GET's. Returns the formula names. */
  private checkQuery(endpoint: ReportEndpoint, query: ReportViewQuery, organizationId: number): string[] {
    if (Object.hasOwn(query, 'format'))
      throw badRequest(
        'invalid_parameter',
        'A view opens the JSON report; give format= when opening it, not in view.query.',
        [{ field: 'format', code: 'invalid', message: 'is not part of a view' }],
      );
    const request = storedQueryRequest(endpoint, query, organizationId, 'json');
    return buildPlan(endpoint, request, this.now()).formulas.map((f) => f.name);
  }
}

/** `chart` names a statistic the endpoint offers (`clicks` or `statistics.clicks`) or `formulas.<name>` of the query. */
function checkChart(endpoint: ReportEndpoint, formulas: readonly string[], chart: string): void {
  if (chart.startsWith('formulas.')) {
    if (formulas.includes(chart.slice('formulas.'.length))) return;
    throw unprocessable(`view.chart "${chart.slice(0, 100)}" names no formula of view.query.formulas.`, [
      { field: 'view.chart', code: 'unknown_formula', message: 'names no formula of the query' },
    ]);
  }
  const name = chart.startsWith('statistics.') ? chart.slice('statistics.'.length) : chart;
  if (endpoint.statistics.some((s) => s.name === name)) return;
  throw unprocessable(
    `view.chart "${chart.slice(0, 100)}" is no statistic of /reporting/v0/${endpoint.path} and no formulas.<name>.`,
    [{ field: 'view.chart', code: 'unknown_statistic', message: 'is no statistic of the endpoint' }],
  );
}
