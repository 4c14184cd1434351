/** When a failed delivery is tried again: doubling from `baseMs`, at most `maxMs` apart. */
export interface RetrySchedule {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** The wait after the `attempt`-th failed attempt (1-based). */
export function retryDelayMs(schedule: RetrySchedule, attempt: number): number {
  return Math.min(schedule.baseMs * 2 ** Math.min(attempt - 1, 40), schedule.maxMs);
}

/** The next attempt after `attempt` failed at `now`, or undefined once that would pass `retryUntil` (give up). */
export function nextAttemptAt(schedule: RetrySchedule, attempt: number, now: Date, retryUntil: Date): Date | undefined {
  const next = new Date(now.getTime() + retryDelayMs(schedule, attempt));
  return next.getTime() > retryUntil.getTime() ? undefined : next;
}
