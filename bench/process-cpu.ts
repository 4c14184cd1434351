import { readdirSync, readFileSync } from 'node:fs';

/** CPU time from /proc (Linux): user + system time of processes, reaped children included. */
export const TICKS_PER_SECOND = 100; // USER_HZ

export function procStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return {
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined; // exited meanwhile: its time is in its parent's children's times
  }
}

export function processTable(): Map<number, { ppid: number; ticks: number }> {
  const table = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) table.set(Number(entry), stat);
  }
  return table;
}

/** CPU ms of each tree (a root pid and every live descendant), one pass over /proc. */
export function treeCpuMs(roots: readonly number[]): number[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  return roots.map((root) => {
    let ticks = 0;
    for (const stack = [root]; stack.length > 0;) {
      const pid = stack.pop()!;
      ticks += table.get(pid)?.ticks ?? 0;
      stack.push(...(children.get(pid) ?? []));
    }
    return (ticks / TICKS_PER_SECOND) * 1000;
  });
}

/**
 * A clock of this process's CPU time: every thread (the event loop, libuv's pool, DuckDB's),
 * from process.cpuUsage() in microseconds, finer than /proc's 10 ms ticks; children not
 * included. The returned function reads the CPU ms since the clock started.
 */
export function processCpuClock(): () => number {
  const from = process.cpuUsage();
  return () => {
    const spent = process.cpuUsage(from);
    return (spent.user + spent.system) / 1000;
  };
}

/** A clock of a process tree's CPU time (treeCpuMs: 10 ms ticks, so windows of seconds): CPU ms since it started. */
export function treeCpuClock(root: number): () => number {
  const [from] = treeCpuMs([root]);
  return () => treeCpuMs([root])[0]! - from!;
}
