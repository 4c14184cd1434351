import { isCalendarDay } from '../shared/dates.js';

/**
 * Daily FX rates in units of a currency per 1 EUR (ECB convention), as an operator brings them:
 *
 * - the long layout: header `date,currency,unitsPerEur`, one rate per line
 *   (`2026-11-20,USD,1.0523`);
 * - the ECB's wide layout: header `Date,USD,JPY,...`, one line per business day, `N/A` (or an
 *   empty cell) where a currency has no rate that day, often a trailing comma. This is
 *   eurofxref-hist.csv (dates `2026-11-20`) and the single-day eurofxref.csv (`20 November 2026`,
 *   a space after each comma).
 *
 * Pure: text in, rates or one FxFileError naming the line out.
 */
export interface ParsedFxRates {
  readonly layout: 'long' | 'ecb';
  /** Rates in file order: day (YYYY-MM-DD), currency, rate as written (a positive decimal). */
  readonly days: readonly string[];
  readonly currencies: readonly string[];
  readonly rates: readonly string[];
  /** Codes the service has no reference rates for (ECB history holds CYP, HRK, ...): left out, counted. */
  readonly skipped: { readonly currencies: readonly string[]; readonly rates: number };
}

export class FxFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FxFileError';
  }
}

export interface FxParseOptions {
  /** Currencies rates are kept for; others are skipped. */
  readonly supported: ReadonlySet<string>;
  /** No rate can be published for a later day. */
  readonly today: string;
  /** How messages name the input (a file name). */
  readonly source?: string;
}

const CODE = /^[A-Z]{3}$/;
/** A positive decimal that fits DECIMAL(18,8): up to 10 integer digits; more than 8 decimals are rounded. */
const RATE = /^(?:0|[1-9][0-9]{0,9})(?:\.[0-9]{1,12})?$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const LONG_HEADER = ['date', 'currency', 'unitsPerEur'];

export function parseFxRatesCsv(text: string, options: FxParseOptions): ParsedFxRates {
  const source = options.source ?? 'the rates';
  const fail = (line: number, message: string): never => {
    throw new FxFileError(`${source} line ${line}: ${message}`);
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = cellsOf(lines[0] ?? '');
  const layout = isLongHeader(header) ? 'long' : /^date$/i.test(header[0] ?? '') ? 'ecb' : undefined;
  if (!layout) {
    fail(
      1,
      `the header must be ${LONG_HEADER.join(',')} (one rate per line) or the ECB layout Date,USD,JPY,... (one day per line), not "${(lines[0] ?? '').slice(0, 80)}"`,
    );
  }
  // ECB files end every line with a comma: an empty last column is no currency, and then every line has it.
  const trailingComma = layout === 'ecb' && header.at(-1) === '';
  const columns = layout === 'ecb' ? (trailingComma ? header.slice(1, -1) : header.slice(1)) : [];
  if (layout === 'ecb') {
    const seen = new Set<string>();
    for (const code of columns) {
      if (!CODE.test(code)) fail(1, `"${code}" is not a currency code (three capital letters)`);
      if (seen.has(code)) fail(1, `the currency ${code} is named twice`);
      seen.add(code);
    }
  }

  const days: string[] = [];
  const currencies: string[] = [];
  const rates: string[] = [];
  const skippedCodes = new Set<string>();
  let skippedRates = 0;
  const lineOf = new Map<string, number>();
  const add = (line: number, day: string, code: string, rate: string) => {
    if (!CODE.test(code)) fail(line, `"${code}" is not a currency code (three capital letters)`);
    if (!RATE.test(rate) || Number(rate) < 1e-8)
      fail(
        line,
        `the ${code} rate "${rate}" is not a positive decimal of at most 10 integer digits (units of ${code} per 1 EUR)`,
      );
    if (code === 'EUR') {
      // The base: a line saying EUR is 1 says nothing; any other value is a mistake.
      if (Number(rate) !== 1) fail(line, `EUR is the base of the rates: its rate is 1, not ${rate}`);
      return;
    }
    const key = `${day}|${code}`;
    const earlier = lineOf.get(key);
    if (earlier !== undefined) fail(line, `a second ${code} rate for ${day} (the first is on line ${earlier})`);
    lineOf.set(key, line);
    if (!options.supported.has(code)) {
      skippedCodes.add(code);
      skippedRates++;
      return;
    }
    days.push(day);
    currencies.push(code);
    rates.push(rate);
  };
  const dayOf = (line: number, text: string): string => {
    const day = layout === 'ecb' ? ecbDay(text) : text;
    if (!isCalendarDay(day))
      fail(line, `"${text}" is not a date (YYYY-MM-DD${layout === 'ecb' ? ' or 20 November 2026' : ''})`);
    if (day > options.today)
      fail(line, `${day} is in the future (today is ${options.today}): no rate is published for it yet`);
    return day;
  };

  for (let i = 1; i < lines.length; i++) {
    const line = i + 1;
    if (lines[i]!.trim() === '') continue;
    const cells = cellsOf(lines[i]!);
    if (layout === 'long') {
      if (cells.length !== 3) fail(line, `expected date,currency,unitsPerEur (3 values), found ${cells.length}`);
      add(line, dayOf(line, cells[0]!), cells[1]!, cells[2]!);
      continue;
    }
    const endsWithComma =
      cells.length > 1 && cells.at(-1) === '' && (trailingComma || cells.length === columns.length + 2);
    const values = endsWithComma ? cells.slice(1, -1) : cells.slice(1);
    if (values.length !== columns.length || (trailingComma && !endsWithComma))
      fail(line, `${values.length} values for ${columns.length} currencies`);
    const day = dayOf(line, cells[0]!);
    values.forEach((value, column) => {
      if (value === '' || value === 'N/A') return;
      add(line, day, columns[column]!, value);
    });
  }
  if (days.length === 0) {
    throw new FxFileError(
      skippedRates > 0
        ? `${source}: no rates of a supported currency (skipped ${[...skippedCodes].sort().join(', ')}); the service converts between the currencies of data/fx/eur-reference-rates.csv.gz`
        : `${source}: no rates`,
    );
  }
  return {
    layout: layout!,
    days,
    currencies,
    rates,
    skipped: { currencies: [...skippedCodes].sort(), rates: skippedRates },
  };
}

/** Cells without surrounding spaces and quotes (rates and codes never hold a comma). */
function cellsOf(line: string): string[] {
  return line.split(',').map((cell) =>
    cell
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim(),
  );
}

function isLongHeader(header: readonly string[]): boolean {
  return (
    header.length === LONG_HEADER.length &&
    header.every((cell, i) => cell.toLowerCase() === LONG_HEADER[i]!.toLowerCase())
  );
}

/** `2026-11-20` as it is, `20 November 2026` (eurofxref.csv) as 2026-11-20. */
function ecbDay(text: string): string {
  const match = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(text);
  if (!match) return text;
  const month = MONTHS.findIndex((m) => m.toLowerCase() === match[2]!.toLowerCase());
  if (month < 0) return text;
  return `${match[3]}-${String(month + 1).padStart(2, '0')}-${match[1]!.padStart(2, '0')}`;
}
