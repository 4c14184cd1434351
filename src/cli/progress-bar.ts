/**
 * A progress bar on stderr: redrawn in place on a terminal, a line per ~10 % otherwise (logs,
 * CI), so a long run shows it is alive without flooding a file.
 */

export interface ProgressStream {
  write(text: string): boolean;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

const WIDTH = 24;
const TTY_REDRAW_MS = 100;

export class ProgressBar {
  private lastDecile = -1;
  private lastDraw = 0;
  private readonly started: number;
  private readonly tty: boolean;

  constructor(
    private readonly stream: ProgressStream,
    private readonly total: number,
    private readonly label: string,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.started = clock();
    this.tty = stream.isTTY === true;
  }

  /** `done` of `total` units of work finished, `rows` fact rows written so far. */
  update(done: number, rows: number, detail = ''): void {
    const fraction = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const now = this.clock();
    if (this.tty) {
      if (fraction < 1 && now - this.lastDraw < TTY_REDRAW_MS) return;
      this.lastDraw = now;
      const line = this.line(fraction, rows, now, detail);
      const width = Math.max(20, (this.stream.columns || 100) - 1);
      this.stream.write(`\r${line.slice(0, width).padEnd(Math.min(width, line.length + 10))}`);
      return;
    }
    const decile = Math.floor(fraction * 10);
    if (decile > this.lastDecile) {
      this.lastDecile = decile;
      this.stream.write(`${this.line(fraction, rows, now, detail)}\n`);
    }
  }

  /** Ends the bar's line on a terminal. */
  finish(): void {
    if (this.tty) this.stream.write('\n');
  }

  private line(fraction: number, rows: number, now: number, detail: string): string {
    const seconds = Math.max(1e-3, (now - this.started) / 1000);
    const filled = Math.round(fraction * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
    const pct = `${Math.floor(fraction * 100)}`.padStart(3);
    return `${this.label} ${bar} ${pct}% ${formatCount(rows)} rows ${formatCount(rows / seconds)} rows/s ${formatSeconds(seconds)}${detail ? ` ${detail}` : ''}`;
  }
}

export function formatCount(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)} G`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)} k`;
  return String(Math.round(value));
}

export function formatSeconds(seconds: number): string {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
