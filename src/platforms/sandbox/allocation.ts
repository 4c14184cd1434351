/**
 * Splits an integer total (impressions, micros of cost, hundredths of conversions) into
 * integer shares that add up to exactly the total: proportional to weights, each share at
 * most its cap. Keyword rows and ad rows of the sandbox are two such splits of the same
 * totals, which is why their sums agree to the last micro.
 *
 * Water-filling first: a row whose proportional share would reach its cap gets the cap and
 * leaves; the rest is shared again. Then largest remainder: every row gets the floor of its
 * share, and the units left over go to the largest fractional parts (ties to the lower index).
 * The caller keeps total <= sum of caps; otherwise the shares add up to the sum of the caps.
 * Weights of zero count as equal weights when all open rows have zero.
 *
 * Written with plain loops: the statistics of one account call it hundreds of thousands of times.
 */
export function allocate(total: number, weights: readonly number[], caps?: readonly number[]): number[] {
  const n = weights.length;
  const out = new Array<number>(n).fill(0);
  if (!(total > 0) || n === 0) return out;
  const open = new Array<boolean>(n);
  let openCount = 0;
  for (let i = 0; i < n; i++) {
    open[i] = caps === undefined || (caps[i] ?? 0) > 0;
    if (open[i]) openCount++;
  }
  let remaining = total;

  for (;;) {
    if (openCount === 0 || remaining <= 0) return out;
    const sum = openWeight(weights, open);
    // Fixed for the whole pass: every row of a pass is measured against the same split.
    const denominator = sum > 0 ? sum : openCount;
    let capped = false;
    if (caps !== undefined) {
      for (let i = 0; i < n; i++) {
        if (!open[i]) continue;
        const cap = caps[i] ?? 0;
        if ((remaining * weightAt(weights, i, sum)) / denominator >= cap) {
          out[i] = cap;
          open[i] = false;
          openCount--;
          capped = true;
        }
      }
    }
    if (!capped) break;
    remaining = total;
    for (let i = 0; i < n; i++) if (!open[i]) remaining -= out[i] ?? 0;
  }

  const sum = openWeight(weights, open);
  const denominator = sum > 0 ? sum : openCount;
  const fraction = new Array<number>(n).fill(-1);
  let left = remaining;
  for (let i = 0; i < n; i++) {
    if (!open[i]) continue;
    const share = (remaining * weightAt(weights, i, sum)) / denominator;
    const whole = Math.floor(share);
    out[i] = whole;
    left -= whole;
    fraction[i] = share - whole;
  }
  // Units left over (and the odd unit floating point puts too many) go by fractional part.
  while (left !== 0) {
    const step = left > 0 ? 1 : -1;
    let i = left > 0 ? largest(fraction, out, caps) : smallest(fraction, out);
    if (i < 0) {
      // Every open row has had its unit and some are still left: start another round.
      for (let k = 0; k < n; k++) if (open[k]) fraction[k] = 0;
      i = left > 0 ? largest(fraction, out, caps) : smallest(fraction, out);
      if (i < 0) break;
    }
    out[i] = (out[i] ?? 0) + step;
    left -= step;
    fraction[i] = -1;
  }
  return out;
}

function openWeight(weights: readonly number[], open: readonly boolean[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) if (open[i]) sum += Math.max(0, weights[i] ?? 0);
  return sum;
}

function weightAt(weights: readonly number[], i: number, sum: number): number {
  return sum > 0 ? Math.max(0, weights[i] ?? 0) : 1;
}

/** The open row with the largest fraction that may still grow; -1 when none. */
function largest(fraction: readonly number[], out: readonly number[], caps: readonly number[] | undefined): number {
  let best = -1;
  for (let i = 0; i < fraction.length; i++) {
    const f = fraction[i] ?? -1;
    if (f < 0 || (caps !== undefined && (out[i] ?? 0) >= (caps[i] ?? 0))) continue;
    if (best < 0 || f > (fraction[best] ?? -1)) best = i;
  }
  return best;
}

/** The open row with the smallest fraction that may still shrink; -1 when none. */
function smallest(fraction: readonly number[], out: readonly number[]): number {
  let best = -1;
  for (let i = 0; i < fraction.length; i++) {
    const f = fraction[i] ?? -1;
    if (f < 0 || (out[i] ?? 0) <= 0) continue;
    if (best < 0 || f < (fraction[best] ?? 2)) best = i;
  }
  return best;
}
