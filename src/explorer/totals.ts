/**
 * The total of a column in `totals` or a `segmentTotals` entry: statistics are members of their
 * own (`totals.clicks`), formulas are under `formulas` (`totals.formulas.cpa`: a formula may be
 * named like a statistic). undefined for anything else (segments, names).
 */
export function totalAt(totals: Record<string, unknown>, key: string): unknown {
  if (key.startsWith('statistics.')) return totals[key.slice('statistics.'.length)];
  if (key.startsWith('formulas.'))
    return (totals.formulas as Record<string, unknown> | undefined)?.[key.slice('formulas.'.length)];
  return undefined;
}
