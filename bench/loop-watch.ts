/**
 * Watches the event loop of this process (the bench serves in-process) over one load run: how
 * late its timers came (perf_hooks' delay histogram), and two causes of lateness, told apart:
 * garbage collection (each GC pause) and waiting for a core (the main thread's run-queue wait
 * from /proc/thread-self/schedstat, Linux only), which a busy machine causes without any code
 * holding the loop.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export interface LoopWatched {
  /** The latest a timer fired, ms. */
  readonly maxMs: number;
  readonly p99Ms: number;
  /** The longest GC pause, ms. */
  readonly gcMaxMs: number;
  /** Share of the run the main thread was runnable but waited for a core, 0..1 (NaN off Linux). */
  readonly waitShare: number;
  /** The longest stretch between two 5 ms ticks, ms, and how the main thread spent it (Linux). */
  readonly longest: { readonly ms: number; readonly ranMs: number; readonly waitedMs: number };
}

/** Nanoseconds the calling thread has run and waited to run; undefined off Linux. */
function schedstat(): { runNs: number; waitNs: number } | undefined {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(' ').map(Number);
    return { runNs: run!, waitNs: wait! };
  } catch {
    return undefined;
  }
}

/** Starts watching now; the returned function stops and reports. */
export function watchEventLoop(): () => LoopWatched {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let gcMaxMs = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
  });
  gcs.observe({ entryTypes: ['gc'] });
  const startedAt = performance.now();
  const before = schedstat();
  // A tick every 5 ms: the longest gap between ticks, split into running and waiting for a core;
  // what is neither, the thread slept: up to 5 ms waiting for this tick, beyond that blocked in
  // the kernel (e.g. on a lock or a page fault).
  let longest = { ms: 0, ranMs: 0, waitedMs: 0 };
  let lastTick = { at: startedAt, stat: before };
  const ticks = setInterval(() => {
    const now = { at: performance.now(), stat: schedstat() };
    const ms = now.at - lastTick.at;
    if (ms > longest.ms) {
      const ranMs = now.stat && lastTick.stat ? (now.stat.runNs - lastTick.stat.runNs) / 1e6 : NaN;
      const waitedMs = now.stat && lastTick.stat ? (now.stat.waitNs - lastTick.stat.waitNs) / 1e6 : NaN;
      longest = { ms, ranMs, waitedMs };
    }
    lastTick = now;
  }, 5);
  histogram.enable();
  return () => {
    histogram.disable();
    clearInterval(ticks);
    for (const entry of gcs.takeRecords()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
    gcs.disconnect();
    const after = schedstat();
    const windowNs = (performance.now() - startedAt) * 1e6;
    return {
      maxMs: histogram.max / 1e6,
      p99Ms: histogram.percentile(99) / 1e6,
      gcMaxMs,
      waitShare: before && after ? (after.waitNs - before.waitNs) / windowNs : NaN,
      longest,
    };
  };
}
