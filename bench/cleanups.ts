/**
 * A bench run's undo stack: every process and directory it starts is registered with `push`, and
 * undone newest first by `undo` (to a mark, or all), also on Ctrl-C or SIGTERM.
 */
export class Cleanups {
  private readonly steps: Array<() => Promise<void> | void> = [];

  constructor(private readonly log: (line: string) => void) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        log(`${signal}: cleaning up`);
        void this.undo().then(() => process.exit(130));
      });
  }

  push(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  /** How many are registered: a mark to undo back to. */
  get length(): number {
    return this.steps.length;
  }

  /** Undoes what was registered after `mark` (everything by default), newest first; a failing step is logged, the rest still run. */
  async undo(mark = 0): Promise<void> {
    while (this.steps.length > mark) {
      const step = this.steps.pop()!;
      try {
        await step();
      } catch (error) {
        this.log(`cleanup: ${(error as Error).message}`);
      }
    }
  }
}
