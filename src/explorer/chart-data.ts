import { TIME_SEGMENTS, type SegmentField, type Unit } from './report-fields.js';
import { totalAt } from './totals.js';

/**
 * What the chart draws, from a report page. Segmented reports are drawn from `segmentTotals`, the
 * service's own sums per bucket over the whole filtered result (ratios of sums, never an average
 * of rows, and every page, not only the one shown); an unsegmented report draws the page's rows.
 * Under compare each bucket (and row) carries the compared range's value in `comparison`, paired
 * as the service pairs them (time buckets by position, the others by value): drawn dashed.
 */
export interface ChartSeries {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
  /** The compared range's values: drawn dashed, in the colour of the series it compares. */
  readonly compared?: boolean;
}

/** How the values read (axis, legend). */
export interface ChartFormat {
  readonly unit: Unit;
  readonly currency: string | null;
}

const labelOfSegment = (s: SegmentField) => s.label ?? s.name;

export type ChartModel =
  | {
      readonly kind: 'line';
      readonly title: string;
      /** Bucket starts, seconds since the epoch (UTC), ascending. */
      readonly xs: readonly number[];
      /** The time segment on the x axis, e.g. `Day`. */
      readonly unit: string;
      readonly series: readonly ChartSeries[];
    }
  | {
      /** One bar per label; beside it the compared range's, dashed. */
      readonly kind: 'bars';
      readonly title: string;
      readonly labels: readonly string[];
      readonly values: ReadonlyArray<number | null>;
      /** Under compare: the compared range's value of each label. */
      readonly compared?: ReadonlyArray<number | null>;
    }
  | {
      /** A time segment with a breakdown of an additive measure: a stack per time bucket. */
      readonly kind: 'stacked';
      readonly title: string;
      /** The time buckets as the table writes them, ascending. */
      readonly labels: readonly string[];
      /** The breakdown's values, the first at the bottom of each stack. */
      readonly series: readonly ChartSeries[];
    }
  | { readonly kind: 'none'; readonly reason: string };

/** A bar chart of an unsegmented page shows at most this many rows. */
export const MAX_BARS = 30;
/** A line or stacked chart draws at most this many series (bucket combinations beyond the time axis). */
export const MAX_LINES = 12;

export interface ChartInput {
  /** The segments asked for, in the request's order. */
  readonly segments: readonly SegmentField[];
  /** `statistics.<name>` or `formulas.<name>`. */
  readonly measure: string;
  /** The label of the measure, e.g. `Clicks`. */
  readonly measureLabel: string;
  /** Sums of sums make sense (clicks, cost): a breakdown over time is drawn as stacks. */
  readonly additive?: boolean;
  /** The report compares with another range: draw its values too. */
  readonly compared?: boolean;
  readonly rows: ReadonlyArray<Record<string, unknown>>;
  readonly segmentTotals: ReadonlyArray<Record<string, unknown>> | undefined;
  /** The member naming a row (`name`, or `text` for keywords). */
  readonly nameField: string;
  /** The answer warned of rows in several currencies: their money sums are null. */
  readonly mixedCurrencies: boolean;
}

export function chartModel(input: ChartInput): ChartModel {
  const model = drawnModel(input);
  const values =
    model.kind === 'none' ? [] : model.kind === 'bars' ? model.values : model.series.flatMap((s) => s.values);
  if (model.kind !== 'none' && values.every((v) => v === null))
    return {
      kind: 'none',
      reason: `${input.measureLabel} has no value to draw${
        input.mixedCurrencies ? ': the rows are in several currencies, so money sums are null. Choose a currency.' : '.'
      }`,
    };
  return model;
}

function drawnModel(input: ChartInput): ChartModel {
  const { segments, measure, measureLabel } = input;
  if (segments.length === 0) return barsOfRows(input);
  const buckets = input.segmentTotals;
  // A bucket holds its statistics as members and its formulas (over the bucket's sums) in `formulas`.
  if (!measure.startsWith('statistics.') && !measure.startsWith('formulas.'))
    return { kind: 'none', reason: `Segment totals hold statistics and formulas only: ${measureLabel} has none.` };
  if (buckets === undefined || buckets.length === 0) return { kind: 'none', reason: 'No activity in this range.' };
  const time = segments.find((s) => TIME_SEGMENTS.has(s.name));
  const others = segments.filter((s) => s !== time);
  const valueOf = (bucket: Record<string, unknown>) => numberOrNull(totalAt(bucket, measure));
  const comparedOf = (bucket: Record<string, unknown>) => numberOrNull(totalAt(bucket, `comparison.${measure}`));
  const labelOf = (bucket: Record<string, unknown>, of: readonly SegmentField[]) =>
    of.map((s) => String(segmentValue(bucket, s) ?? '–')).join(' · ');
  const compared = (label: string, values: ReadonlyArray<number | null>): ChartSeries => ({
    label: `${label}, compared range`,
    values,
    compared: true,
  });

  if (time === undefined) {
    return {
      kind: 'bars',
      title: `${measureLabel} by ${segments.map(labelOfSegment).join(' and ')}`,
      labels: buckets.map((b) => labelOf(b, segments)),
      values: buckets.map(valueOf),
      ...(input.compared ? { compared: buckets.map(comparedOf) } : {}),
    };
  }
  const xs = [...new Set(buckets.map((b) => bucketStart(time.name, segmentValue(b, time))))]
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  const column = new Map(xs.map((x, i) => [x, i]));
  const stacked = others.length > 0 && input.additive === true;
  // Under compare each line gets its dashed twin: half as many lines.
  const maxSeries = input.compared && !stacked ? MAX_LINES / 2 : MAX_LINES;
  const series = new Map<string, { values: Array<number | null>; compared: Array<number | null> }>();
  for (const bucket of buckets) {
    const x = bucketStart(time.name, segmentValue(bucket, time));
    if (x === undefined) continue;
    const label = others.length === 0 ? measureLabel : labelOf(bucket, others);
    let entry = series.get(label);
    if (entry === undefined) {
      if (series.size >= maxSeries) continue;
      entry = { values: xs.map(() => null), compared: xs.map(() => null) };
      series.set(label, entry);
    }
    entry.values[column.get(x)!] = valueOf(bucket);
    entry.compared[column.get(x)!] = comparedOf(bucket);
  }
  const title = `${measureLabel} by ${labelOfSegment(time)}${others.length > 0 ? ` and ${others.map(labelOfSegment).join(', ')}` : ''}`;
  if (stacked) {
    const timeLabels = new Map(
      buckets.map((b) => [bucketStart(time.name, segmentValue(b, time)), segmentValue(b, time)]),
    );
    return {
      kind: 'stacked',
      title,
      labels: xs.map((x) => String(timeLabels.get(x) ?? '')),
      series: [...series].map(([label, entry]) => ({ label, values: entry.values })),
    };
  }
  return {
    kind: 'line',
    title,
    xs,
    unit: labelOfSegment(time),
    series: [...series].flatMap(([label, entry]) =>
      input.compared
        ? [{ label, values: entry.values }, compared(label, entry.compared)]
        : [{ label, values: entry.values }],
    ),
  };
}

function barsOfRows(input: ChartInput): ChartModel {
  const rows = input.rows.slice(0, MAX_BARS);
  if (rows.length === 0) return { kind: 'none', reason: 'No rows.' };
  const [group, name] = splitMeasure(input.measure);
  const comparedOf = (row: Record<string, unknown>) =>
    numberOrNull(
      ((row.comparison as Record<string, unknown> | undefined)?.[group] as Record<string, unknown> | undefined)?.[name],
    );
  return {
    kind: 'bars',
    title: `${input.measureLabel}${input.rows.length > MAX_BARS ? `, first ${MAX_BARS} rows of the page` : ''}`,
    labels: rows.map((row) => String(row[input.nameField] ?? row.id ?? '')),
    values: rows.map((row) => numberOrNull((row[group] as Record<string, unknown> | undefined)?.[name])),
    ...(input.compared ? { compared: rows.map(comparedOf) } : {}),
  };
}

function splitMeasure(measure: string): [string, string] {
  const dot = measure.indexOf('.');
  return [measure.slice(0, dot), measure.slice(dot + 1)];
}

function segmentValue(bucket: Record<string, unknown>, segment: SegmentField): unknown {
  const key = segment.key.replace(/^segments\./, '');
  return (bucket.segments as Record<string, unknown> | undefined)?.[key];
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The first day of a time bucket, in epoch seconds (UTC); undefined for a value of another shape. */
export function bucketStart(segment: string, value: unknown): number | undefined {
  const text = String(value);
  let match: RegExpExecArray | null;
  let ms: number | undefined;
  if (
    (segment === 'Day' || segment === 'Week' || segment === 'WeekSunday') &&
    (match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text))
  )
    ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // An hour of the platform account's day: drawn on a UTC axis as the local hour it names.
  else if (segment === 'Hour' && (match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):00$/.exec(text)))
    ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]));
  else if (segment === 'Month' && (match = /^(\d{4})-(\d{2})$/.exec(text)))
    ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, 1);
  else if (segment === 'Quarter' && (match = /^(\d{4})-Q([1-4])$/.exec(text)))
    ms = Date.UTC(Number(match[1]), (Number(match[2]) - 1) * 3, 1);
  else if (segment === 'Year' && (match = /^(\d{4})$/.exec(text))) ms = Date.UTC(Number(match[1]), 0, 1);
  return ms === undefined ? undefined : ms / 1000;
}
