/**
 * What a report says beside its numbers (issue 19): the `warnings` of a JSON body, and the same
 * for exports in a response header, since an export's body is the file alone.
 */
export type ReportWarning =
  | { readonly code: 'mixed_currencies'; readonly message: string; readonly currencies: readonly string[] }
  | {
      readonly code: 'estimated_fx_rates';
      readonly message: string;
      readonly firstDay: string;
      readonly lastDay: string;
      readonly currencies: readonly string[];
    }
  | {
      readonly code: 'incomplete_data';
      readonly message: string;
      /** The last day with final figures of every synced platform account of the report; null when none was synced. */
      readonly completeThrough: string | null;
      /** How many platform accounts of the report are not final through the range's end (never synced ones included). */
      readonly platformAccountCount: number;
      /** Their ids, the first 100 by id (meta.freshness lists every account). */
      readonly platformAccountIds: readonly number[];
      /** How many of them were never synced (no figures at all). */
      readonly neverSyncedCount: number;
      /** Their ids, the first 100 by id. */
      readonly neverSyncedIds: readonly number[];
    }
  | {
      readonly code: 'mixed_currency_sort';
      readonly message: string;
      /** The sort keys in a currency, as the request names them (`statistics.cost`). */
      readonly sortKeys: readonly string[];
      /** The currencies of the rows sorted (sorted). */
      readonly currencies: readonly string[];
    }
  | {
      readonly code: 'unknown_labels';
      readonly message: string;
      /** The label names of the filter that no entity of the level in the organization has. */
      readonly labels: readonly string[];
    };

/**
 * Rows sorted by money in their own currencies: 100 MXN ranks above 90 EUR. Said when the rows
 * sorted are in several currencies and no `currency=` converts them.
 */
export function mixedCurrencySort(sortKeys: readonly string[], currencies: readonly string[]): ReportWarning {
  return {
    code: 'mixed_currency_sort',
    message: `The rows are sorted by ${sortKeys.join(', ')} in their own currencies (${currencies.join(', ')}): amounts of different currencies are ranked as plain numbers. Ask with currency=<ISO 4217 code> to sort by amounts converted into one currency.`,
    sortKeys,
    currencies,
  };
}

/**
 * Label names of the filter that no entity of the organization has: the filter reads null for
 * them, so it is likely misspelt. `spelt`: the organization's names that differ only in case.
 */
export function unknownLabels(
  labels: readonly string[],
  entities: string,
  spelt: ReadonlyMap<string, readonly string[]>,
): ReportWarning {
  const hints = labels.flatMap((name) => {
    const others = spelt.get(name) ?? [];
    return others.length === 0 ? [] : [`labels.${others.join(' or labels.')} (not labels.${name})`];
  });
  return {
    code: 'unknown_labels',
    message: `No ${entities} of this organization has a label named ${labels.join(', ')}: the filter reads ${labels.map((l) => `labels.${l}`).join(', ')} as null on every row. Label names are case-sensitive.${
      hints.length === 0 ? '' : ` Did you mean ${hints.join(', ')}?`
    }`,
    labels,
  };
}

/** Where money was converted at rates that are not published ones: the days and the rates' currencies. */
export interface FxEstimates {
  readonly firstDay: string;
  readonly lastDay: string;
  readonly currencies: readonly string[];
}

/** The ratios named in the mixed-currency message: those that read money (see readsMoney). */
const MONEY_RATIOS = 'averageCpc, averageCpm, costPerConversion, valuePerConversion, roas';

export function mixedCurrencies(currencies: readonly string[]): ReportWarning {
  return {
    code: 'mixed_currencies',
    message: `The totals sum rows in ${currencies.length} currencies (${currencies.join(', ')}): their money statistics and the ratios over money (${MONEY_RATIOS}) are null. Ask with currency=<ISO 4217 code> to convert every row into one currency.`,
    currencies,
  };
}

export function estimatedFxRates(estimates: FxEstimates): ReportWarning {
  const days =
    estimates.firstDay === estimates.lastDay
      ? `on ${estimates.firstDay}`
      : `on days from ${estimates.firstDay} to ${estimates.lastDay}`;
  return {
    code: 'estimated_fx_rates',
    message: `Money was converted at estimated exchange rates of ${estimates.currencies.join(', ')} ${days}: the reference rates after a currency's last published day are generated, not published. An operator loads published rates with adreport fx import.`,
    firstDay: estimates.firstDay,
    lastDay: estimates.lastDay,
    currencies: estimates.currencies,
  };
}

/**
 * Collects the estimate columns of several result rows (the parts of a page, the totals): the
 * earliest first day, the latest last day, the union of the comma-joined currencies.
 */
export class FxEstimateCollector {
  private first: string | undefined;
  private last: string | undefined;
  private readonly currencies = new Set<string>();

  /** One row's [first day, last day, currencies] (nulls where nothing was estimated). */
  add([first, last, currencies]: readonly unknown[]): void {
    if (typeof first === 'string' && (this.first === undefined || first < this.first)) this.first = first;
    if (typeof last === 'string' && (this.last === undefined || last > this.last)) this.last = last;
    if (typeof currencies === 'string')
      for (const code of currencies.split(',')) if (code !== '') this.currencies.add(code);
  }

  result(): FxEstimates | undefined {
    if (this.first === undefined || this.last === undefined) return undefined;
    return { firstDay: this.first, lastDay: this.last, currencies: [...this.currencies].sort() };
  }
}

/**
 * The warnings as one header value, an RFC 8941 List: each member the warning's code, its fields
 * as parameters (`estimated_fx_rates;first="2025-10-20";last="2026-11-23";currencies="AUD USD"`).
 * ASCII only; the message stays in the JSON form and the README.
 */
export function warningsHeader(warnings: readonly ReportWarning[]): string {
  return warnings.map(headerMember).join(', ');
}

function headerMember(w: ReportWarning): string {
  switch (w.code) {
    case 'estimated_fx_rates':
      return `${w.code};first="${w.firstDay}";last="${w.lastDay}";currencies="${w.currencies.join(' ')}"`;
    case 'mixed_currencies':
      return `${w.code};currencies="${w.currencies.join(' ')}"`;
    case 'mixed_currency_sort':
      return `${w.code};currencies="${w.currencies.join(' ')}"`;
    case 'unknown_labels':
      return `${w.code};labels="${w.labels.join(' ')}"`;
    case 'incomplete_data':
      return `${w.code}${w.completeThrough === null ? '' : `;through="${w.completeThrough}"`};accounts=${w.platformAccountCount}${w.neverSyncedCount > 0 ? `;never_synced=${w.neverSyncedCount}` : ''}`;
  }
}

export const WARNINGS_HEADER = 'Adreport-Warnings';
