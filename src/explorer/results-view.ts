import { chartModel } from './chart-data.js';
import { byId, h, replaceChildren } from './dom.js';
import { formatCount, type DisplayType } from './number-format.js';
import type { ReportAnswer } from './report-api.js';
import { formulaText, formulaTypes } from './report-query.js';
import { ReportChart } from './report-chart.js';
import { shownStatistics, type ReportEndpoint, type SegmentField } from './report-fields.js';
import type { ReportState } from './report-state.js';
import { reportColumns, reportTable } from './results-table.js';

export interface ResultsActions {
  /** Show another state of the report (a page, a sort). */
  navigate(state: ReportState): void;
  /** The chart draws another measure (no new request). */
  chartChanged(state: ReportState): void;
}

/** The results panel: status line, warnings, chart, table and pager of the last answer. */
export class ResultsView {
  private readonly panel = byId('results', HTMLElement);
  private readonly status = byId('status', HTMLParagraphElement);
  private readonly error = byId('report-error', HTMLDivElement);
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

  constructor(private readonly actions: ResultsActions) {
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

  /** A refused or failed report: its message, and nothing of the report shown before. */
  failed(message: string): void {
    this.shown = undefined;
    this.panel.setAttribute('aria-busy', 'false');
    this.status.textContent = 'The report could not be run.';
    replaceChildren(this.error, message);
    this.downloads.hidden = true;
    this.chartPanel.hidden = true;
    this.pager.hidden = true;
    replaceChildren(this.tableWrap);
  }

  show(answer: ReportAnswer, state: ReportState, endpoint: ReportEndpoint): void {
    this.shown = { answer, state, endpoint };
    this.panel.setAttribute('aria-busy', 'false');
    const range = answer.startDate && answer.endDate ? `${answer.startDate} to ${answer.endDate}` : 'the default range';
    this.status.textContent = `${formatCount(answer.totalCount)} rows, ${range}${
      answer.completeThrough ? `; figures final through ${answer.completeThrough}` : ''
    }.`;
    const warnings = this.warnings();
    replaceChildren(this.error, ...warnings.map((w) => h('p', { class: 'warning', 'data-code': w.code }, w.message)));
    this.downloads.hidden = false;
    const columns = this.columns();
    replaceChildren(
      this.tableWrap,
      reportTable({
        caption: `/reporting/v0/${state.endpoint}, ${range}`,
        columns,
        rows: answer.rows,
        totals: answer.body.totals as Record<string, unknown> | undefined,
        totalCount: answer.totalCount,
        sort: state.sort,
        onSort: (key) => this.actions.navigate({ ...state, sort: key, offset: 0 }),
      }),
    );
    this.showPager();
    const measures = columns.filter((c) => c.key.startsWith('statistics.') || c.key.startsWith('formulas.'));
    replaceChildren(this.chartMeasure, ...measures.map((c) => h('option', { value: c.key }, c.label)));
    const chosen = measures.find((m) => m.key === state.chart) ?? measures[0];
    this.chartMeasure.value = chosen?.key ?? '';
    this.chartPanel.hidden = measures.length === 0;
    this.drawChart();
  }

  private columns() {
    const { answer, state, endpoint } = this.shown!;
    const statistics = shownStatistics(endpoint, state.statistics);
    const types = formulaTypes(formulaText(state.formulas));
    const first = answer.rows[0]?.formulas as Record<string, unknown> | undefined;
    const formulaNames = first ? Object.keys(first) : [...types.keys()];
    return reportColumns(
      this.segments(),
      endpoint.nameParameter,
      statistics,
      formulaNames.map((name) => ({ name, type: types.get(name) ?? ('Decimal' as DisplayType) })),
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
    const { answer, endpoint } = this.shown!;
    const measure = this.chartMeasure.value;
    const label = this.chartMeasure.selectedOptions[0]?.textContent ?? measure;
    const model = chartModel({
      segments: this.segments(),
      measure,
      measureLabel: label,
      rows: answer.rows,
      segmentTotals: answer.body.segmentTotals as Array<Record<string, unknown>> | undefined,
      nameField: endpoint.nameParameter,
      mixedCurrencies: this.warnings().some((w) => w.code === 'mixed_currencies'),
    });
    this.chart.draw(model);
    this.chartCaption.textContent =
      model.kind === 'none'
        ? ''
        : model.kind === 'line' || this.segments().length > 0
          ? 'Totals per bucket over the whole filtered result (every page), as the service sums them.'
          : 'The rows of this page, in the order of the table.';
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
