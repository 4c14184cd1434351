import type { Unit } from './report-fields.js';

/**
 * How the explorer writes numbers, by the unit the catalogue gives a statistic: counts with
 * thousands separators, money in the row's currency (its ISO code), percents of fractions, ratios
 * as `3.2x`, durations as `m:ss`. The service rounds money and decimals to 6 places and keeps ratios
 * exact; the table shows fewer digits and keeps the exact value in the cell's title.
 */
export type DisplayType = 'Integer' | 'Decimal' | 'Money' | 'Ratio' | 'Percentage';

const LOCALE = 'en-US';
const COUNT = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 2 });
const INTEGER = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const PLAIN_MONEY = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const PERCENT = new Intl.NumberFormat(LOCALE, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const CHANGE = new Intl.NumberFormat(LOCALE, {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
  signDisplay: 'exceptZero',
});
const RATIO = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 1, maximumFractionDigits: 2 });
const COMPACT = new Intl.NumberFormat(LOCALE, { notation: 'compact', maximumFractionDigits: 1 });
const AXIS_PERCENT = new Intl.NumberFormat(LOCALE, { style: 'percent', maximumFractionDigits: 1 });
const moneyFormats = new Map<string, Intl.NumberFormat | undefined>();

/** A currency's format (`MXN 1,234.50`), or undefined for a code Intl does not take. */
function moneyFormat(currency: string, compact = false): Intl.NumberFormat | undefined {
  const key = `${currency}${compact ? ':c' : ''}`;
  if (!moneyFormats.has(key)) {
    let format: Intl.NumberFormat | undefined;
    try {
      format = new Intl.NumberFormat(LOCALE, {
        style: 'currency',
        currency,
        currencyDisplay: 'code',
        ...(compact ? { notation: 'compact', maximumFractionDigits: 1 } : {}),
      });
    } catch {
      format = undefined;
    }
    moneyFormats.set(key, format);
  }
  return moneyFormats.get(key);
}

/** A formula's declared type as a unit. */
export function unitOfDisplayType(type: DisplayType): Unit {
  switch (type) {
    case 'Money':
      return 'money';
    case 'Percentage':
      return 'percent';
    case 'Ratio':
      return 'ratio';
    case 'Integer':
    case 'Decimal':
      return 'count';
  }
}

/** The text of a value in a cell: `–` for null (a ratio over zero, money over several currencies). */
export function formatValue(value: unknown, unit: Unit, currency?: string | null): string {
  if (value === null || value === undefined) return '–';
  if (typeof value !== 'number') return String(value);
  switch (unit) {
    case 'money': {
      const format = typeof currency === 'string' && currency !== '' ? moneyFormat(currency) : undefined;
      return (format ?? PLAIN_MONEY).format(value);
    }
    case 'percent':
      return PERCENT.format(value);
    case 'ratio':
      return `${RATIO.format(value)}x`;
    case 'duration':
      return formatDuration(value);
    case 'count':
      return COUNT.format(value);
  }
}

/** A short form for an axis (`12K`, `EUR 1.2K`, `2.5%`, `3.2x`). */
export function formatAxis(value: number, unit: Unit, currency?: string | null): string {
  switch (unit) {
    case 'money': {
      const format = typeof currency === 'string' && currency !== '' ? moneyFormat(currency, true) : undefined;
      return (format ?? COMPACT).format(value);
    }
    case 'percent':
      return AXIS_PERCENT.format(value);
    case 'ratio':
      return `${RATIO.format(value)}x`;
    case 'duration':
      return formatDuration(value);
    case 'count':
      return COMPACT.format(value);
  }
}

/** A change against the compared range, a fraction: `+12.5%`, `−3.0%`, `–` when there is none. */
export function formatChange(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  return CHANGE.format(value);
}

/** Seconds as `m:ss` (`h:mm:ss` from an hour on); under a minute `12.5 s`. */
function formatDuration(seconds: number): string {
  const sign = seconds < 0 ? '-' : '';
  const s = Math.abs(seconds);
  if (s < 60) return `${sign}${RATIO.format(s)} s`;
  const whole = Math.round(s);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${sign}${h}:${String(m).padStart(2, '0')}:${rest}` : `${sign}${m}:${rest}`;
}

export function formatCount(value: number): string {
  return INTEGER.format(value);
}
