import uPlot from 'uplot';
import type { ChartModel } from './chart-data.js';
import { formatNumber } from './number-format.js';

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

/**
 * Draws a chart model with uPlot into `container`: a line per series over time, or bars over
 * labelled buckets. The container is role="img"; its label says what is drawn, since the numbers
 * themselves are in the table below.
 */
export class ReportChart {
  private plot: uPlot | undefined;
  private readonly resize = new ResizeObserver(() => {
    this.plot?.setSize({ width: this.width(), height: HEIGHT });
  });

  constructor(private readonly container: HTMLElement) {
    this.resize.observe(container);
  }

  draw(model: ChartModel): void {
    this.plot?.destroy();
    this.plot = undefined;
    this.container.replaceChildren();
    switch (model.kind) {
      case 'none':
        this.container.setAttribute('aria-label', model.reason);
        this.container.textContent = model.reason;
        return;
      case 'line':
        this.container.setAttribute(
          'aria-label',
          `Line chart: ${model.title}, ${model.xs.length} points per line, ${model.series.length} line${model.series.length === 1 ? '' : 's'}.`,
        );
        this.plot = new uPlot(
          this.lineOptions(model),
          [model.xs as number[], ...model.series.map((s) => s.values as number[])],
          this.container,
        );
        return;
      case 'bars':
        this.container.setAttribute('aria-label', `Bar chart: ${model.title}, ${model.labels.length} bars.`);
        this.plot = new uPlot(
          this.barOptions(model),
          [model.labels.map((_, i) => i), model.values as number[]],
          this.container,
        );
        return;
      default:
        return model satisfies never;
    }
  }

  private width(): number {
    return Math.max(320, this.container.clientWidth);
  }

  private lineOptions(model: Extract<ChartModel, { kind: 'line' }>): uPlot.Options {
    return {
      width: this.width(),
      height: HEIGHT,
      title: model.title,
      scales: { x: { time: true } },
      // Buckets are UTC days: the axis says the dates the table says.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      series: [
        { label: model.unit },
        ...model.series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length]!,
          width: 2,
          points: { show: model.xs.length <= 62 },
          value: (_: uPlot, v: number | null) => formatNumber(v, 'Ratio'),
        })),
      ],
      axes: [{}, { values: (_, splits) => splits.map((v) => formatNumber(v, 'Ratio')), size: 70 }],
    };
  }

  private barOptions(model: Extract<ChartModel, { kind: 'bars' }>): uPlot.Options {
    const { labels } = model;
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
        {
          label: model.title,
          fill: `${PALETTE[0]}cc`,
          stroke: PALETTE[0]!,
          paths: uPlot.paths.bars!({ size: [0.7, 80] }),
          points: { show: false },
          value: (_, v) => formatNumber(v, 'Ratio'),
        },
      ],
      axes: [
        {
          splits: () => labels.map((_, i) => i),
          values: (_, splits) => splits.map((i) => shorten(labels[i] ?? '')),
          rotate: labels.length > 6 ? -35 : 0,
          size: labels.length > 6 ? 90 : 40,
          gap: 4,
        },
        { values: (_, splits) => splits.map((v) => formatNumber(v, 'Ratio')), size: 70 },
      ],
      legend: { show: false },
    };
  }
}

function shorten(label: string): string {
  return label.length > 18 ? `${label.slice(0, 17)}…` : label;
}
