import { byId, h, replaceChildren } from './dom.js';
import type { ReportEndpoint } from './report-fields.js';
import { PAGE_SIZES, type ReportState } from './report-state.js';

/** Report parameters that have a control of their own, where the service's errors about them are shown. */
export const FIELD_CONTROLS = {
  dateRange: 'date-range',
  startDate: 'start-date',
  endDate: 'end-date',
  limit: 'limit',
  offset: 'limit',
  segments: 'segments',
  statistics: 'statistics',
  filter: 'filter',
  sort: 'sort',
  formulas: 'formulas',
  currency: 'currency',
  compare: 'compare',
} as const;
export type FieldWithControl = keyof typeof FIELD_CONTROLS;

const EXPRESSION_FIELDS = new Set<string>(['filter', 'sort', 'formulas']);

/**
 * The report form: built from the endpoint's entry of GET /reporting/v0/fields, filled from a
 * state, and read back into one.
 */
export class ReportForm {
  private readonly form = byId('report-form', HTMLFormElement);
  private readonly endpointSelect = byId('endpoint', HTMLSelectElement);
  private readonly dateRangeSelect = byId('date-range', HTMLSelectElement);
  private readonly startDate = byId('start-date', HTMLInputElement);
  private readonly endDate = byId('end-date', HTMLInputElement);
  private readonly dates = byId('dates', HTMLDivElement);
  private readonly limitSelect = byId('limit', HTMLSelectElement);
  private readonly segmentChoices = byId('segment-choices', HTMLDivElement);
  private readonly statisticChoices = byId('statistic-choices', HTMLDivElement);
  private readonly filter = byId('filter', HTMLInputElement);
  private readonly sort = byId('sort', HTMLInputElement);
  private readonly formulas = byId('formulas', HTMLTextAreaElement);
  private readonly currency = byId('currency', HTMLInputElement);
  private readonly filterHelp = byId('filter-help', HTMLParagraphElement);
  private readonly compareSelect = byId('compare', HTMLSelectElement);
  private readonly compareDates = byId('compare-dates', HTMLDivElement);
  private readonly compareStart = byId('compare-start', HTMLInputElement);
  private readonly compareEnd = byId('compare-end', HTMLInputElement);
  private rendered: ReportEndpoint | undefined;

  constructor(
    private readonly endpoints: readonly ReportEndpoint[],
    onSubmit: (state: ReportState) => void,
  ) {
    replaceChildren(
      this.endpointSelect,
      ...endpoints.map((e) =>
        h('option', { value: e.path }, e.adPlatformType ? `${e.path} (${e.adPlatformType} only)` : e.path),
      ),
    );
    replaceChildren(this.limitSelect, ...PAGE_SIZES.map((size) => h('option', { value: size }, size)));
    this.endpointSelect.addEventListener('change', () => {
      // The statistics and segments on offer are the new endpoint's: keep what it has of the old choice.
      const state = this.read();
      this.show({ ...state, endpoint: this.endpointSelect.value });
    });
    this.dateRangeSelect.addEventListener('change', () => this.enableDates());
    this.compareSelect.addEventListener('change', () => this.enableDates());
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      onSubmit(this.read());
    });
  }

  /** The endpoint a path names, or the first one when it names none. */
  endpointOf(path: string): ReportEndpoint {
    return this.endpoints.find((e) => e.path === path) ?? this.endpoints[0]!;
  }

  /** Fill the form from a state (the endpoint's choices rebuilt when the endpoint changed). */
  show(state: ReportState): void {
    const endpoint = this.endpointOf(state.endpoint);
    if (this.rendered !== endpoint) this.renderChoices(endpoint);
    this.endpointSelect.value = endpoint.path;
    this.dateRangeSelect.value = state.dateRange ?? '';
    this.startDate.value = state.startDate;
    this.endDate.value = state.endDate;
    this.enableDates();
    if (![...this.limitSelect.options].some((o) => o.value === String(state.limit)))
      this.limitSelect.append(h('option', { value: state.limit }, state.limit));
    this.limitSelect.value = String(state.limit);
    const segments = new Set(state.segments);
    for (const box of this.boxes(this.segmentChoices)) box.checked = segments.has(box.value);
    const statistics = new Set(state.statistics);
    for (const box of this.boxes(this.statisticChoices))
      box.checked = state.statistics.length === 0 ? box.dataset.default === 'true' : statistics.has(box.value);
    this.filter.value = state.filter;
    this.sort.value = state.sort;
    this.formulas.value = state.formulas;
    this.currency.value = state.currency;
    const range = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(state.compare ?? '');
    this.compareSelect.value = range ? 'custom' : (state.compare ?? '');
    this.compareStart.value = range?.[1] ?? '';
    this.compareEnd.value = range?.[2] ?? '';
    this.enableDates();
  }

  /** The state the form describes, at its first page (the chart is the caller's). */
  read(): ReportState {
    const endpoint = this.endpointOf(this.endpointSelect.value);
    const checked = (container: HTMLElement) => this.boxes(container).filter((b) => b.checked);
    const statistics = checked(this.statisticChoices);
    const defaults = this.boxes(this.statisticChoices).filter((b) => b.dataset.default === 'true');
    const onlyDefaults = statistics.length === defaults.length && statistics.every((b) => b.dataset.default === 'true');
    const dateRange = this.dateRangeSelect.value;
    const compare =
      this.compareSelect.value === 'custom'
        ? `${this.compareStart.value}..${this.compareEnd.value}`
        : this.compareSelect.value;
    return {
      endpoint: endpoint.path,
      dateRange: dateRange === '' ? undefined : dateRange,
      startDate: dateRange === '' ? this.startDate.value : '',
      endDate: dateRange === '' ? this.endDate.value : '',
      segments: checked(this.segmentChoices).map((b) => b.value),
      statistics: onlyDefaults ? [] : statistics.map((b) => b.value),
      filter: this.filter.value,
      sort: this.sort.value,
      formulas: this.formulas.value,
      currency: this.currency.value.trim().toUpperCase(),
      limit: Number(this.limitSelect.value),
      offset: 0,
      chart: undefined,
      ...(compare === '' ? {} : { compare }),
    };
  }

  /** The control of a parameter the service named, and its label (for a link to it). */
  controlOf(field: string): { label: string; control: HTMLElement } | undefined {
    if (!(field in FIELD_CONTROLS)) return undefined;
    const control = byId(FIELD_CONTROLS[field as FieldWithControl], HTMLElement);
    const label = document.querySelector(`label[for="${control.id}"]`)?.textContent ?? field;
    return { label: label.toLowerCase(), control };
  }

  clearErrors(): void {
    for (const field of Object.keys(FIELD_CONTROLS) as FieldWithControl[]) {
      const message = document.getElementById(`${field}-error`);
      if (message) replaceChildren(message);
      document.getElementById(FIELD_CONTROLS[field])?.removeAttribute('aria-invalid');
    }
  }

  /**
   * The service's message under the control of the parameter it names; for an expression, the
   * text with the fault marked, and the caret put there. Returns false for a parameter the form
   * has no control for.
   */
  showError(field: string, message: string, position: number | undefined): boolean {
    if (!(field in FIELD_CONTROLS)) return false;
    const control = byId(FIELD_CONTROLS[field as FieldWithControl], HTMLElement);
    const target = byId(`${field === 'offset' ? 'limit' : field}-error`, HTMLElement);
    control.setAttribute('aria-invalid', 'true');
    const text = EXPRESSION_FIELDS.has(field) ? (control as HTMLInputElement | HTMLTextAreaElement).value : '';
    if (position === undefined || text === '') {
      replaceChildren(target, message);
    } else {
      const at = Math.min(Math.max(position, 0), text.length);
      const length = faultLength(text, at);
      replaceChildren(
        target,
        h('span', {}, message),
        h(
          'pre',
          { class: 'excerpt', 'aria-hidden': 'true' },
          h('code', {}, text.slice(0, at), h('mark', {}, text.slice(at, at + length) || ' '), text.slice(at + length)),
        ),
      );
      (control as HTMLInputElement | HTMLTextAreaElement).setSelectionRange(at, at + length);
    }
    control.focus();
    return true;
  }

  private renderChoices(endpoint: ReportEndpoint): void {
    this.rendered = endpoint;
    replaceChildren(
      this.dateRangeSelect,
      ...endpoint.dateRanges.map((r) => h('option', { value: r.name, title: r.description }, presetLabel(r.name))),
      h('option', { value: '' }, 'Custom dates'),
    );
    replaceChildren(
      this.segmentChoices,
      ...endpoint.segments.map((s) =>
        choice('segment', s.name, s.label ?? s.name, `${s.name}: ${s.description}`, false),
      ),
    );
    replaceChildren(
      this.statisticChoices,
      ...endpoint.statistics.map((s) => choice('statistic', s.name, s.label, `${s.name}: ${s.description}`, s.default)),
    );
    const fields = endpoint.filterable.filter((f) => !f.includes('<') && !f.includes('.'));
    this.filterHelp.textContent = `Fields: ${fields.join(', ')}, statistics.<name>, formulas.<name>${
      endpoint.filterable.some((f) => f.startsWith('labels.')) ? ', labels.<name>' : ''
    }. Text in single quotes.`;
  }

  /** The dates are asked only for a custom range; a preset's range is shown with the results. */
  private enableDates(): void {
    const custom = this.dateRangeSelect.value === '';
    this.dates.hidden = !custom;
    this.startDate.disabled = !custom;
    this.endDate.disabled = !custom;
    const customCompare = this.compareSelect.value === 'custom';
    this.compareDates.hidden = !customCompare;
    this.compareStart.disabled = !customCompare;
    this.compareEnd.disabled = !customCompare;
  }

  private boxes(container: HTMLElement): HTMLInputElement[] {
    return [...container.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
  }
}

function choice(kind: string, value: string, label: string, description: string, isDefault: boolean): HTMLElement {
  const id = `${kind}-${value}`;
  return h(
    'div',
    { class: 'choice' },
    h('input', { type: 'checkbox', id, value, 'data-default': String(isDefault), title: description }),
    h('label', { for: id, title: description }, label),
  );
}

/** `LAST_30_DAYS` -> `Last 30 days`. */
function presetLabel(name: string): string {
  const words = name.toLowerCase().split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** How much of an expression the mark covers: the name or number at the fault, else one character. */
function faultLength(text: string, at: number): number {
  const token = /^(?:[A-Za-z_][\w.]*|\d+(?:\.\d+)?|'[^']*'?)/.exec(text.slice(at))?.[0];
  return Math.max(1, token?.length ?? 1);
}
