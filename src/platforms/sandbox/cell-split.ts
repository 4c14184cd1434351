import { allocate } from './allocation.js';

/**
 * One device x network cell of an ad group on one day, in integers: money in micros (cost) and
 * cents (value), fractional conversions in hundredths. Integers let the ad rows and the
 * keyword rows be two exact splits of the same totals.
 */
export interface CellTotals {
  readonly impressions: number;
  readonly clicks: number;
  readonly costMicros: number;
  readonly conversions: number;
  readonly valueCents: number;
  readonly calls: number;
  readonly callConversions: number;
  readonly callConversionsFractional: number;
}

/** Relative weights of the rows a cell is split over (ads, or keywords). */
export interface RowShape {
  readonly impressions: readonly number[];
  readonly clickRate: readonly number[];
  readonly conversionRate: readonly number[];
}

/** The rows' shares of each figure, index for index with the shape's rows. */
export interface CellSplit {
  readonly impressions: readonly number[];
  readonly clicks: readonly number[];
  readonly costMicros: readonly number[];
  readonly conversions: readonly number[];
  readonly valueCents: readonly number[];
  readonly calls: readonly number[];
  readonly callConversions: readonly number[];
  readonly callConversionsFractional: readonly number[];
}

/**
 * Splits the totals over the rows. Each figure is capped by the one it depends on, row by row
 * (clicks <= impressions, conversions <= clicks, calls <= clicks, call conversions <= calls,
 * fractional <= whole), and costs and values only land where there are clicks and
 * conversions to carry them.
 */
export function splitCell(totals: CellTotals, shape: RowShape): CellSplit {
  const impressions = allocate(totals.impressions, shape.impressions);
  const clicks = allocate(totals.clicks, scaled(impressions, shape.clickRate), impressions);
  const conversions = allocate(
    totals.conversions,
    scaled(clicks, shape.conversionRate),
    clicks.map((c) => 100 * c),
  );
  const calls = allocate(totals.calls, clicks, clicks);
  const callConversions = allocate(totals.callConversions, calls, calls);
  return {
    impressions,
    clicks,
    costMicros: allocate(totals.costMicros, clicks, clicks.map(onlyWherePositive)),
    conversions,
    valueCents: allocate(totals.valueCents, conversions, conversions.map(onlyWherePositive)),
    calls,
    callConversions,
    callConversionsFractional: allocate(
      totals.callConversionsFractional,
      callConversions,
      callConversions.map((c) => 100 * c),
    ),
  };
}

function scaled(base: readonly number[], factors: readonly number[]): number[] {
  return base.map((value, i) => value * (factors[i] ?? 1));
}

/** No cap where the parent figure is positive; nothing where it is zero. */
function onlyWherePositive(parent: number): number {
  return parent > 0 ? Infinity : 0;
}
