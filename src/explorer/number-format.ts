/**
 * How the table writes numbers. The service rounds money and decimals to 6 places and keeps
 * ratios exact; the table shows fewer digits and keeps the exact value in the cell's title, so a
 * reader can still see what the API answered.
 */
export type DisplayType = 'Integer' | 'Decimal' | 'Money' | 'Ratio' | 'Percentage';

const FORMATS: Readonly<Record<DisplayType, Intl.NumberFormat>> = {
  Integer: new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }),
  Decimal: new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }),
  Money: new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  Ratio: new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 }),
  Percentage: new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 2 }),
};

/** The text of a value in a cell: `–` for null (a ratio over zero, money over several currencies). */
export function formatNumber(value: unknown, type: DisplayType): string {
  if (value === null || value === undefined) return '–';
  if (typeof value !== 'number') return String(value);
  return FORMATS[type].format(value);
}

export function formatCount(value: number): string {
  return FORMATS.Integer.format(value);
}
