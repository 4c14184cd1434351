import fs from 'node:fs';
import os from 'node:os';

/** The threads of this process now, by id (Linux: /proc/self/task); empty where that cannot be read. */
export function threadIds(): number[] {
  try {
    return fs.readdirSync('/proc/self/task').map(Number);
  } catch {
    return [];
  }
}

/**
 * Gives every thread that is not one of Node's own, that is libuv's pool (where DuckDB runs each
 * query) and DuckDB's workers, the nice value `nice`, so that the event loop's thread gets a core
 * as soon as it has work, ahead of the queries. With 2 cores saturated by queries, the event loop
 * otherwise waited up to 35-80 ms for a core; V8's workers keep their priority because a garbage
 * collection waits for them (lowering them too made pauses of 50-90 ms). Linux takes a thread id
 * where setpriority wants a process id; elsewhere nothing happens.
 */
export function lowerWorkerThreads(nodeThreads: ReadonlySet<number>, nice: number): void {
  for (const tid of threadIds()) {
    if (tid === process.pid || nodeThreads.has(tid)) continue;
    try {
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
    } catch {
      // The thread ended between listing and setting.
    }
  }
}
