import { chartModel } from './chart-data.js';
import { byId, h, replaceChildren } from './dom.js';
import { breadcrumb, drilledState, drillTargets } from './drill.js';
import { formatCount, unitOfDisplayType, type DisplayType } from './number-format.js';
import type { ReportAnswer } from './report-api.js';
import { ReportChart } from './report-chart.js';
import { shownStatistics, type ReportEndpoint, type SegmentField } from './report-fields.js';
import { formulaText, formulaTypes } from './report-query.js';
import { hashOfState, type ReportState } from './report-state.js';
import { reportColumns, reportTable, type Column } from './results-table.js';

export interface ResultsActions {
  /** Show another state of the report (a page, a sort). */
  navigate(state: ReportState): void;
  /** The chart draws another measure (no new request). */
  chartChanged(state: ReportState): void;
}

/** The results panel: status line, warnings, breadcrumb, chart, table and pager of the last answer. */
export class ResultsView {
  private readonly panel = byId('results', HTMLElement);
  private readonly status = byId('status', HTMLParagraphElement);
  private readonly error = byId('report-error', HTMLDivElement);
  private readonly crumbs = byId('breadcrumb', HTMLElement);
  private readonly downloads = byId('downloads', HTMLDivElement);
  private readonly chartPanel = byId('chart-panel', HTMLDivElement);
  private readonly chartMeasure = byId('chart-measure', HTMLSelectElement);
  private readonly chartCaption = byId('chart-caption', HTMLElement);
  private readonly tableWrap = byId('table-wrap', HTMLDivElement);
  private readonly pager = byId('pager', HTMLElement);
  private readonly previous = byId('previous-page', HTMLButtonElement);
  private readonly next = byId('next-page', HTMLButtonElement);
  private readonly pageStatus = byId('page-status', HTMLSpanElement);
  private readonly chart = new ReportChart(byId('chart', HTMLDivElement));
  private shown: { answer: ReportAnswer; state: ReportState; endpoint: ReportEndpoint } | undefined;
  private measures: readonly Column[] = [];

  constructor(
    private readonly actions: ResultsActions,
    private readonly endpoints: readonly ReportEndpoint[],
  ) {
    this.previous.addEventListener('click', () => this.turnPage(-1));
    this.next.addEventListener('click', () => this.turnPage(1));
    this.chartMeasure.addEventListener('change', () => {
      if (!this.shown) return;
      const state = { ...this.shown.state, chart: this.chartMeasure.value };
      this.shown = { ...this.shown, state };
      this.drawChart();
      this.actions.chartChanged(state);
    });
  }

  loading(state: ReportState): void {
    this.panel.setAttribute('aria-busy', 'true');
    this.status.textContent = `Running /reporting/v0/${state.endpoint}…`;
    replaceChildren(this.error);
  }

  /**
   * A refused or failed report: its message, with a way to each control it names; the last good
   * results stay on screen, marked as the previous report's.
   */
  failed(message: string, fields: ReadonlyArray<{ label: string; control: HTMLElement }> = []): void {
    this.panel.setAttribute('aria-busy', 'false');
    this.status.textContent = this.shown
      ? 'The report could not be run: the results below are those of the last report that ran.'
      : 'The report could not be run.';
    this.tableWrap.classList.toggle('stale', this.shown !== undefined);
    this.chartPanel.classList.toggle('stale', this.shown !== undefined);
    replaceChildren(
      this.error,
      h('span', {}, message),
      ...fields.map(({ label, control }) => {
        const button = h('button', { type: 'button', class: 'link' }, `Go to ${label}`);
        button.addEventListener('click', () => control.focus());
        return button;
      }),
    );
  }

  show(answer: ReportAnswer, state: ReportState, endpoint: ReportEndpoint): void {
    this.shown = { answer, state, endpoint };
    this.panel.setAttribute('aria-busy', 'false');
    this.tableWrap.classList.remove('stale');
    this.chartPanel.classList.remove('stale');
    const range = answer.startDate && answer.endDate ? `${answer.startDate} to ${answer.endDate}` : 'the default range';
    const compared =
      answer.compareStartDate && answer.compareEndDate
        ? `, compared with ${answer.compareStartDate} to ${answer.compareEndDate}`
        : '';
    this.status.textContent = `${formatCount(answer.totalCount)} rows, ${range}${compared}${
      answer.completeThrough ? `; figures final through ${answer.completeThrough}` : ''
    }.`;
    const warnings = this.warnings();
    replaceChildren(this.error, ...warnings.map((w) => h('p', { class: 'warning', 'data-code': w.code }, w.message)));
    this.showBreadcrumb(state);
    this.downloads.hidden = false;
    const columns = this.columns();
    const targets = drillTargets(endpoint.path, this.endpoints);
    replaceChildren(
      this.tableWrap,
      reportTable({
        caption: `/reporting/v0/${state.endpoint}, ${range}${compared}`,
        columns,
        rows: answer.rows,
        totals: answer.body.totals as Record<string, unknown> | undefined,
        totalCount: answer.totalCount,
        sort: state.sort,
        onSort: (key) => this.actions.navigate({ ...state, sort: key, offset: 0 }),
        nameKey: endpoint.nameParameter,
        drill: (row) => {
          const id = row.id;
          if (typeof id !== 'number') return [];
          const name = String(row[endpoint.nameParameter] ?? id);
          return targets.map((target) => ({
            href: linkTo(drilledState(state, target, id, name)),
            label: target.label,
            title: `Open the ${target.label} of ${name}`,
          }));
        },
      }),
    );
    this.showPager();
    const measures = columns.filter((c) => c.key.startsWith('statistics.') || c.key.startsWith('formulas.'));
    this.measures = measures;
    replaceChildren(this.chartMeasure, ...measures.map((c) => h('option', { value: c.key }, c.label)));
    const chosen = measures.find((m) => m.key === state.chart) ?? measures[0];
    this.chartMeasure.value = chosen?.key ?? '';
    this.chartPanel.hidden = measures.length === 0;
    this.drawChart();
  }

  private showBreadcrumb(state: ReportState): void {
    const crumbs = breadcrumb(state);
    this.crumbs.hidden = crumbs.length === 0;
    replaceChildren(
      this.crumbs,
      crumbs.length === 0
        ? null
        : h(
            'ol',
            {},
            ...crumbs.map((crumb) =>
              h(
                'li',
                {},
                crumb.state
                  ? h('a', { href: linkTo(crumb.state) }, crumb.label)
                  : h('span', { 'aria-current': 'page' }, crumb.label),
              ),
            ),
          ),
    );
  }

  private columns(): Column[] {
    const { answer, state, endpoint } = this.shown!;
    const statistics = shownStatistics(endpoint, state.statistics);
    const types = formulaTypes(formulaText(state.formulas));
    const first = answer.rows[0]?.formulas as Record<string, unknown> | undefined;
    const formulaNames = first ? Object.keys(first) : [...types.keys()];
    return reportColumns(
      this.segments(),
      endpoint.nameParameter,
      statistics,
      formulaNames.map((name) => ({
        name,
        label: name,
        unit: unitOfDisplayType(types.get(name) ?? ('Decimal' as DisplayType)),
      })),
      Boolean(state.compare),
    );
  }

  private warnings(): Array<{ code: string; message: string }> {
    return (this.shown!.answer.body.warnings ?? []) as Array<{ code: string; message: string }>;
  }

  private segments(): SegmentField[] {
    const { state, endpoint } = this.shown!;
    return state.segments.flatMap((name) => endpoint.segments.find((s) => s.name === name) ?? []);
  }

  private drawChart(): void {
    const { answer, state, endpoint } = this.shown!;
    const measure = this.chartMeasure.value;
    const column = this.measures.find((m) => m.key === measure);
    const totals = answer.body.totals as Record<string, unknown> | undefined;
    const rowCurrencies = new Set(answer.rows.map((r) => r.currency));
    const currency =
      typeof totals?.currency === 'string'
        ? totals.currency
        : rowCurrencies.size === 1 && typeof answer.rows[0]?.currency === 'string'
          ? answer.rows[0].currency
          : null;
    const unit = column?.unit ?? 'count';
    const statistic = endpoint.statistics.find((s) => `statistics.${s.name}` === measure);
    const model = chartModel({
      segments: this.segments(),
      measure,
      measureLabel: column?.label ?? measure,
      additive: statistic ? statistic.additive : unit === 'count' || unit === 'money',
      compared: Boolean(state.compare),
      rows: answer.rows,
      segmentTotals: answer.body.segmentTotals as Array<Record<string, unknown>> | undefined,
      nameField: endpoint.nameParameter,
      mixedCurrencies: this.warnings().some((w) => w.code === 'mixed_currencies'),
    });
    this.chart.draw(model, { unit, currency });
    this.chartCaption.textContent =
      model.kind === 'none'
        ? ''
        : `${
            model.kind === 'line' || model.kind === 'stacked' || this.segments().length > 0
              ? 'Totals per bucket over the whole filtered result (every page), as the service sums them.'
              : 'The rows of this page, in the order of the table.'
          }${state.compare ? ' Dashed: the compared range (time buckets paired by position).' : ''}`;
  }

  private showPager(): void {
    const { answer, state } = this.shown!;
    const first = answer.rows.length === 0 ? 0 : state.offset + 1;
    const last = state.offset + answer.rows.length;
    this.pager.hidden = answer.totalCount <= state.limit && state.offset === 0;
    this.pageStatus.textContent = `Rows ${formatCount(first)}–${formatCount(last)} of ${formatCount(answer.totalCount)}`;
    this.previous.disabled = state.offset === 0;
    this.next.disabled = last >= answer.totalCount;
  }

  private turnPage(direction: 1 | -1): void {
    if (!this.shown) return;
    const { state } = this.shown;
    this.actions.navigate({ ...state, offset: Math.max(0, state.offset + direction * state.limit) });
  }
}

/** A link to another report: the page's own path and the state's fragment (not a bare `#...`, which reads as a skip link). */
function linkTo(state: ReportState): string {
  return `${location.pathname}#${hashOfState(state)}`;
}
