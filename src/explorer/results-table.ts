import { h } from './dom.js';
import { formatChange, formatCount, formatValue } from './number-format.js';
import type { SegmentField, Unit } from './report-fields.js';
import { totalAt } from './totals.js';

export interface Column {
  /** `statistics.clicks`, `formulas.cpa`, `change.statistics.ctr`, `segments.day`, `name`, ...: also its sort key. */
  readonly key: string;
  /** The header's text: the catalogue's label (`CTR`). */
  readonly label: string;
  /** The raw name, in the header's title (`ctr`, `segments.day`). */
  readonly raw: string;
  /** Numbers are right-aligned and formatted by it; undefined: text. */
  readonly unit: Unit | undefined;
  /** Statistics, formulas and their changes have a value in `totals`. */
  readonly totalled: boolean;
  /** A change column: the key of the compared value, and the unit it is written in. */
  readonly compared?: { readonly key: string; readonly unit: Unit };
}

export interface TableInput {
  readonly caption: string;
  readonly columns: readonly Column[];
  readonly rows: ReadonlyArray<Record<string, unknown>>;
  readonly totals: Record<string, unknown> | undefined;
  /** Rows of the whole result, for the totals row's label. */
  readonly totalCount: number;
  /** The first key of the request's sort, `-` for descending, to mark the sorted column. */
  readonly sort: string;
  readonly onSort: (key: string) => void;
  /** The name column's link to the next level down (drill-down), if this level has one. */
  readonly drill?: (row: Record<string, unknown>) => ReadonlyArray<{ href: string; label: string; title: string }>;
  readonly nameKey?: string;
}

/** The header of the name column, by the level's name parameter (keywords: text, search terms: searchTerm). */
const NAME_LABELS: Readonly<Record<string, string>> = { text: 'Text', searchTerm: 'Search term' };

export interface MeasureColumn {
  readonly name: string;
  readonly label: string;
  readonly unit: Unit;
}

/**
 * The columns of a report: segments, the row's name and id, currency, statistics, formulas; with
 * a comparison, each statistic and formula followed by its change.
 */
export function reportColumns(
  segments: readonly SegmentField[],
  nameField: string,
  statistics: readonly MeasureColumn[],
  formulas: readonly MeasureColumn[],
  compared = false,
): Column[] {
  const measures = (group: 'statistics' | 'formulas', list: readonly MeasureColumn[]): Column[] =>
    list.flatMap((m) => {
      const column: Column = {
        key: `${group}.${m.name}`,
        label: m.label,
        raw: `${group}.${m.name}`,
        unit: m.unit,
        totalled: true,
      };
      if (!compared) return [column];
      return [
        column,
        {
          key: `change.${group}.${m.name}`,
          label: `${m.label} change`,
          raw: `change.${group}.${m.name}`,
          unit: 'percent',
          totalled: true,
          compared: { key: `comparison.${group}.${m.name}`, unit: m.unit },
        },
      ];
    });
  return [
    ...segments.map((s) => ({ key: s.key, label: s.label ?? s.name, raw: s.key, unit: undefined, totalled: false })),
    { key: nameField, label: NAME_LABELS[nameField] ?? 'Name', raw: nameField, unit: undefined, totalled: false },
    { key: 'id', label: 'Id', raw: 'id', unit: undefined, totalled: false },
    { key: 'currency', label: 'Currency', raw: 'currency', unit: undefined, totalled: false },
    ...measures('statistics', statistics),
    ...measures('formulas', formulas),
  ];
}

/** The value at a dotted key of a row (`statistics.clicks`, `segments.day`). */
export function valueAt(row: Record<string, unknown>, key: string): unknown {
  let value: unknown = row;
  for (const part of key.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[part];
  return value;
}

/** A number cell: the formatted value, the exact one (and for a change, both ranges' values) in its title. */
function numberCell(
  tag: 'td' | 'th',
  column: Column,
  value: unknown,
  compared: unknown,
  current: unknown,
  currency: string | null,
): HTMLElement {
  const exact = value === null || value === undefined ? undefined : String(value);
  if (column.compared) {
    const unit = column.compared.unit;
    const title = `${formatValue(current, unit, currency)} against ${formatValue(compared, unit, currency)} in the compared range (exact: ${String(current ?? 'null')} against ${String(compared ?? 'null')}${exact === undefined ? '' : `, change ${exact}`})`;
    const sign = typeof value === 'number' && value !== 0 ? (value > 0 ? 'up' : 'down') : undefined;
    return h(tag, { class: `number change${sign ? ` ${sign}` : ''}`, title }, formatChange(value));
  }
  return h(tag, { class: 'number', title: exact }, formatValue(value, column.unit!, currency));
}

/**
 * The report as a table: a header whose columns sort the report when pressed, the page's rows,
 * and a footer with the totals over the whole filtered result. The first column stays in view
 * while the table scrolls sideways (CSS: `.sticky`).
 */
export function reportTable(input: TableInput): HTMLTableElement {
  const [sortKey, descending] = firstSortKey(input.sort);
  const header = input.columns.map((column, i) => {
    const sorted = column.key === sortKey;
    const next = sorted && descending ? column.key : `-${column.key}`;
    return h(
      'th',
      {
        scope: 'col',
        class: cellClass(column, i),
        title: column.raw,
        'aria-sort': sorted ? (descending ? 'descending' : 'ascending') : undefined,
      },
      column.key === 'currency'
        ? column.label
        : sortButton(column, next, sorted ? (descending ? ' ▼' : ' ▲') : '', input.onSort),
    );
  });
  const body = input.rows.map((row) => {
    const currency = typeof row.currency === 'string' ? row.currency : null;
    return h(
      'tr',
      {},
      ...input.columns.map((column, i) => {
        const value = valueAt(row, column.key);
        if (column.unit) {
          const current = column.compared ? valueAt(row, column.key.replace(/^change\./, '')) : undefined;
          const compared = column.compared ? valueAt(row, column.compared.key) : undefined;
          const cell = numberCell('td', column, value, compared, current, currency);
          if (i === 0) cell.classList.add('sticky');
          return cell;
        }
        const text = value === null || value === undefined ? '–' : String(value);
        const links = column.key === input.nameKey ? (input.drill?.(row) ?? []) : [];
        // The first column is a row header: it names the row for a screen reader reading across.
        // The name opens the next level down; a second level (an ad group's ads) is a link beside it.
        return h(
          i === 0 ? 'th' : 'td',
          { scope: i === 0 ? 'row' : undefined, class: cellClass(column, i) },
          links[0] ? h('a', { href: links[0].href, class: 'drill', title: links[0].title }, text) : text,
          ...links
            .slice(1)
            .flatMap((link) => [' ', h('a', { href: link.href, class: 'drill more', title: link.title }, link.label)]),
        );
      }),
    );
  });
  const table = h(
    'table',
    { id: 'report-table' },
    h('caption', {}, input.caption),
    h('thead', {}, h('tr', {}, ...header)),
    h('tbody', {}, ...body),
  );
  if (input.totals) table.append(totalsRow(input));
  return table;
}

function cellClass(column: Column, index: number): string | undefined {
  const classes = [column.unit ? 'number' : '', column.compared ? 'change' : '', index === 0 ? 'sticky' : ''];
  const joined = classes.filter((c) => c !== '').join(' ');
  return joined === '' ? undefined : joined;
}

function totalsRow(input: TableInput): HTMLTableSectionElement {
  const totals = input.totals!;
  const currency = typeof totals.currency === 'string' ? totals.currency : null;
  // The label spans the columns before the first statistic; each statistic and formula gets its total.
  const firstTotalled = input.columns.findIndex((c) => c.totalled);
  const labelSpan = firstTotalled === -1 ? input.columns.length : firstTotalled;
  const label = `Totals of all ${formatCount(input.totalCount)} rows${currency ? ` (${currency})` : ''}`;
  const cells = input.columns.slice(labelSpan).map((column) => {
    if (!column.totalled || !column.unit) return h('td', { class: 'number' }, '');
    const current = column.compared ? totalAt(totals, column.key.replace(/^change\./, '')) : undefined;
    const compared = column.compared ? totalAt(totals, column.compared.key) : undefined;
    return numberCell('td', column, totalAt(totals, column.key), compared, current, currency);
  });
  return h('tfoot', {}, h('tr', {}, h('th', { scope: 'row', colspan: labelSpan }, label), ...cells));
}

function sortButton(column: Column, key: string, mark: string, onSort: (key: string) => void): HTMLButtonElement {
  const button = h(
    'button',
    {
      type: 'button',
      class: 'sort',
      title: `${column.raw}: sort by it${key.startsWith('-') ? ', descending' : ''}`,
    },
    column.label,
    mark,
  );
  button.addEventListener('click', () => onSort(key));
  return button;
}

function firstSortKey(sort: string): [string, boolean] {
  const first = sort.split(',')[0]?.trim() ?? '';
  return first.startsWith('-') ? [first.slice(1), true] : [first, false];
}
