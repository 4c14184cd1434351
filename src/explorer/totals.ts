/**
 * The total of a column in `totals` or a `segmentTotals` entry: statistics are members of their
 * own (`totals.clicks`), formulas are under `formulas` (`totals.formulas.cpa`: a formula may be
 * named like a statistic); under compare, the compared range's under `comparison` and the changes
 * under `change`, the same way (`totals.change.clicks`, `totals.comparison.formulas.cpa`).
 * undefined for anything else (segments, names).
 */
export function totalAt(totals: Record<string, unknown>, key: string): unknown {
  for (const group of ['comparison.', 'change.'])
    if (key.startsWith(group)) {
      const inner = totals[group.slice(0, -1)] as Record<string, unknown> | null | undefined;
      return inner ? totalAt(inner, key.slice(group.length)) : undefined;
    }
  if (key.startsWith('statistics.')) return totals[key.slice('statistics.'.length)];
  if (key.startsWith('formulas.'))
    return (totals.formulas as Record<string, unknown> | undefined)?.[key.slice('formulas.'.length)];
  return undefined;
}
