import uPlot from 'uplot';
import type { ChartFormat, ChartModel, ChartSeries } from './chart-data.js';
import { formatAxis, formatValue } from './number-format.js';

/** Colours with at least 3:1 contrast against the white background (WCAG 1.4.11, graphical objects). */
const PALETTE = [
  '#1f5fbf',
  '#c2410c',
  '#15803d',
  '#7e22ce',
  '#b91c1c',
  '#0e7490',
  '#a16207',
  '#be185d',
  '#4d7c0f',
  '#4338ca',
  '#57534e',
  '#0f766e',
];
const HEIGHT = 280;
const DASH = [6, 4];

/**
 * Draws a chart model with uPlot into `container`: a line per series over time, bars over
 * labelled buckets (the compared range's beside them, dashed), or stacks over time buckets. The
 * container is role="img"; its label says what is drawn, since the numbers themselves are in the
 * table below.
 */
export class ReportChart {
  private plot: uPlot | undefined;
  private readonly resize = new ResizeObserver(() => {
    this.plot?.setSize({ width: this.width(), height: HEIGHT });
  });

  constructor(private readonly container: HTMLElement) {
    this.resize.observe(container);
  }

  draw(model: ChartModel, format: ChartFormat): void {
    this.plot?.destroy();
    this.plot = undefined;
    this.container.replaceChildren();
    const dashed = (series: readonly ChartSeries[]) =>
      series.some((s) => s.compared) ? ', the compared range dashed' : '';
    switch (model.kind) {
      case 'none':
        this.container.setAttribute('aria-label', model.reason);
        this.container.textContent = model.reason;
        return;
      case 'line': {
        const lines = model.series.filter((s) => !s.compared).length;
        this.container.setAttribute(
          'aria-label',
          `Line chart: ${model.title}, ${model.xs.length} points per line, ${lines} line${lines === 1 ? '' : 's'}${dashed(model.series)}.`,
        );
        this.plot = new uPlot(
          this.lineOptions(model, format),
          [model.xs as number[], ...model.series.map((s) => s.values as number[])],
          this.container,
        );
        return;
      }
      case 'bars':
        this.container.setAttribute(
          'aria-label',
          `Bar chart: ${model.title}, ${model.labels.length} bars${model.compared ? ', the compared range dashed' : ''}.`,
        );
        this.plot = new uPlot(
          this.barOptions(model, format),
          [
            model.labels.map((_, i) => i),
            model.values as number[],
            ...(model.compared ? [model.compared as number[]] : []),
          ],
          this.container,
        );
        return;
      case 'stacked': {
        this.container.setAttribute(
          'aria-label',
          `Stacked bar chart: ${model.title}, ${model.labels.length} stacks of ${model.series.length}.`,
        );
        // Each series is drawn from 0 to its running sum, the tallest first, so the ones below show over it.
        const sums: Array<Array<number | null>> = [];
        model.series.forEach((s, i) =>
          sums.push(s.values.map((v, x) => (i === 0 ? (v ?? 0) : (sums[i - 1]![x] ?? 0) + (v ?? 0)))),
        );
        this.plot = new uPlot(
          this.stackedOptions(model, format),
          [model.labels.map((_, i) => i), ...sums.reverse().map((s) => s as number[])],
          this.container,
        );
        return;
      }
      default:
        return model satisfies never;
    }
  }

  private width(): number {
    return Math.max(280, this.container.clientWidth);
  }

  private valueAxis(format: ChartFormat): uPlot.Axis {
    return { values: (_, splits) => splits.map((v) => formatAxis(v, format.unit, format.currency)), size: 80 };
  }

  private lineOptions(model: Extract<ChartModel, { kind: 'line' }>, format: ChartFormat): uPlot.Options {
    const { unit, currency } = format;
    let colour = -1;
    return {
      width: this.width(),
      height: HEIGHT,
      title: model.title,
      scales: { x: { time: true } },
      // Buckets are UTC days: the axis says the dates the table says.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      series: [
        { label: model.unit },
        ...model.series.map((s) => {
          if (!s.compared) colour++;
          return {
            label: s.label,
            stroke: PALETTE[colour % PALETTE.length]!,
            width: s.compared ? 1.5 : 2,
            dash: s.compared ? DASH : undefined,
            points: { show: model.xs.length <= 62 && !s.compared },
            value: (_: uPlot, v: number | null) => formatValue(v, unit, currency),
          };
        }),
      ],
      axes: [{}, this.valueAxis(format)],
    };
  }

  private categoryAxis(labels: readonly string[]): uPlot.Axis {
    return {
      splits: () => labels.map((_, i) => i),
      values: (_, splits) => splits.map((i) => shorten(labels[i] ?? '')),
      rotate: labels.length > 6 ? -35 : 0,
      size: labels.length > 6 ? 90 : 40,
      gap: 4,
    };
  }

  private barOptions(model: Extract<ChartModel, { kind: 'bars' }>, format: ChartFormat): uPlot.Options {
    const { labels } = model;
    const { unit, currency } = format;
    const pair = model.compared !== undefined;
    const series = [
      { label: model.title, compared: false },
      ...(pair ? [{ label: `${model.title}, compared range`, compared: true }] : []),
    ];
    return {
      width: this.width(),
      height: HEIGHT,
      title: model.title,
      scales: {
        x: { time: false, range: [-0.5, labels.length - 0.5] },
        y: { range: (_, min, max) => [Math.min(0, min), max] },
      },
      series: [
        { label: 'bucket', value: (_, i) => (i === null ? '' : (labels[i] ?? '')) },
        ...series.map((s) => ({
          label: s.label,
          fill: s.compared ? '#ffffff00' : `${PALETTE[0]}cc`,
          stroke: PALETTE[0]!,
          width: s.compared ? 1.5 : 1,
          dash: s.compared ? DASH : undefined,
          paths: uPlot.paths.bars!({ size: [pair ? 0.4 : 0.7, 80], align: pair ? (s.compared ? 1 : -1) : 0 }),
          points: { show: false },
          value: (_: uPlot, v: number | null) => formatValue(v, unit, currency),
        })),
      ],
      axes: [this.categoryAxis(labels), this.valueAxis(format)],
      legend: { show: pair },
    };
  }

  private stackedOptions(model: Extract<ChartModel, { kind: 'stacked' }>, format: ChartFormat): uPlot.Options {
    const { labels } = model;
    const { unit, currency } = format;
    // Drawn tallest first: the series in reverse, so the legend reads from the top of the stack.
    const drawn = model.series.map((s, i) => ({ s, colour: PALETTE[i % PALETTE.length]! })).reverse();
    return {
      width: this.width(),
      height: HEIGHT,
      title: model.title,
      scales: {
        x: { time: false, range: [-0.5, labels.length - 0.5] },
        y: { range: (_, min, max) => [Math.min(0, min), max] },
      },
      series: [
        { label: 'bucket', value: (_, i) => (i === null ? '' : (labels[i] ?? '')) },
        ...drawn.map(({ s, colour }) => ({
          label: s.label,
          fill: colour,
          stroke: colour,
          paths: uPlot.paths.bars!({ size: [0.7, 60] }),
          points: { show: false },
          // The legend says the series' own value, not the running sum it is drawn to.
          value: (_: uPlot, _v: number | null, _series: number, index: number | null) =>
            index === null ? '' : formatValue(s.values[index], unit, currency),
        })),
      ],
      axes: [this.categoryAxis(labels), this.valueAxis(format)],
    };
  }
}

function shorten(label: string): string {
  return label.length > 18 ? `${label.slice(0, 17)}…` : label;
}
