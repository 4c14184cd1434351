import { h } from './dom.js';
import { formatCount, formatNumber, type DisplayType } from './number-format.js';
import type { SegmentField } from './report-fields.js';
import { totalAt } from './totals.js';

export interface Column {
  /** `statistics.clicks`, `formulas.cpa`, `segments.day`, `name`, ...: also its sort key. */
  readonly key: string;
  readonly label: string;
  /** Numbers are right-aligned and formatted; undefined: text. */
  readonly type: DisplayType | undefined;
  /** Statistics and formulas have a value in `totals`. */
  readonly totalled: boolean;
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
}

/** The header of the name column, by the level's name parameter (keywords: text, search terms: searchTerm). */
const NAME_LABELS: Readonly<Record<string, string>> = { text: 'Text', searchTerm: 'Search term' };

/** The columns of a report: segments, the row's name and id, currency, statistics, formulas. */
export function reportColumns(
  segments: readonly SegmentField[],
  nameField: string,
  statistics: ReadonlyArray<{ name: string; type: DisplayType }>,
  formulas: ReadonlyArray<{ name: string; type: DisplayType }>,
): Column[] {
  return [
    ...segments.map((s) => ({ key: s.key, label: s.name, type: undefined, totalled: false })),
    { key: nameField, label: NAME_LABELS[nameField] ?? 'Name', type: undefined, totalled: false },
    { key: 'id', label: 'Id', type: undefined, totalled: false },
    { key: 'currency', label: 'Currency', type: undefined, totalled: false },
    ...statistics.map((s) => ({ key: `statistics.${s.name}`, label: s.name, type: s.type, totalled: true })),
    ...formulas.map((f) => ({ key: `formulas.${f.name}`, label: f.name, type: f.type, totalled: true })),
  ];
}

/** The value at a dotted key of a row (`statistics.clicks`, `segments.day`). */
export function valueAt(row: Record<string, unknown>, key: string): unknown {
  let value: unknown = row;
  for (const part of key.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[part];
  return value;
}

/**
 * The report as a table: a header whose numeric columns sort the report when pressed, the page's
 * rows, and a footer with the totals over the whole filtered result.
 */
export function reportTable(input: TableInput): HTMLTableElement {
  const [sortKey, descending] = firstSortKey(input.sort);
  const header = input.columns.map((column) => {
    const sorted = column.key === sortKey;
    const next = sorted && descending ? column.key : `-${column.key}`;
    return h(
      'th',
      {
        scope: 'col',
        class: column.type ? 'number' : undefined,
        'aria-sort': sorted ? (descending ? 'descending' : 'ascending') : undefined,
      },
      column.key === 'currency'
        ? column.label
        : sortButton(column.label, next, sorted ? (descending ? ' ▼' : ' ▲') : '', input.onSort),
    );
  });
  const body = input.rows.map((row) =>
    h(
      'tr',
      {},
      ...input.columns.map((column) => {
        const value = valueAt(row, column.key);
        return column.type
          ? h(
              'td',
              { class: 'number', title: value === null || value === undefined ? undefined : String(value) },
              formatNumber(value, column.type),
            )
          : h('td', {}, value === null || value === undefined ? '–' : String(value));
      }),
    ),
  );
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

function totalsRow(input: TableInput): HTMLTableSectionElement {
  const totals = input.totals!;
  // The label spans the columns before the first statistic; each statistic and formula gets its total.
  const firstTotalled = input.columns.findIndex((c) => c.totalled);
  const labelSpan = firstTotalled === -1 ? input.columns.length : firstTotalled;
  const label = `Totals of all ${formatCount(input.totalCount)} rows${
    typeof totals.currency === 'string' ? ` (${totals.currency})` : ''
  }`;
  const cells = input.columns
    .slice(labelSpan)
    .map((column) =>
      h(
        'td',
        { class: 'number' },
        column.totalled && column.type ? formatNumber(totalAt(totals, column.key), column.type) : '',
      ),
    );
  return h('tfoot', {}, h('tr', {}, h('th', { scope: 'row', colspan: labelSpan }, label), ...cells));
}

function sortButton(label: string, key: string, mark: string, onSort: (key: string) => void): HTMLButtonElement {
  const button = h(
    'button',
    { type: 'button', class: 'sort', title: `Sort by ${label}${key.startsWith('-') ? ', descending' : ''}` },
    label,
    mark,
  );
  button.addEventListener('click', () => onSort(key));
  return button;
}

function firstSortKey(sort: string): [string, boolean] {
  const first = sort.split(',')[0]?.trim() ?? '';
  return first.startsWith('-') ? [first.slice(1), true] : [first, false];
}
