import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The layers of a request that Server-Timing names (issue 39), in the order a report passes them:
 * authentication, parsing and planning, the freshness and scope look-ups, compiling, waiting for a
 * report slot, DuckDB's parse/bind/optimize (`prepare`, nothing when the plan is cached), running
 * the statement and reading its result (`execute`), and writing the response body (`render`).
 */
export const TIMING_LAYERS = [
  'auth',
  'parse',
  'freshness',
  'compile',
  'queue',
  'prepare',
  'execute',
  'scope',
  'render',
] as const;
export type TimingLayer = (typeof TIMING_LAYERS)[number];

interface Spent {
  wallMs: number;
  cpuMs: number;
}

/**
 * What one request spent per layer, wall and CPU. Each layer's time is its own (exclusive): a
 * statement prepared inside the freshness look-up counts as `prepare`, not twice. CPU is the
 * process's (process.cpuUsage: every thread, DuckDB's included), so it is the request's own only
 * while requests run one at a time, as the bench's --profile runs them.
 */
export class RequestTiming {
  private readonly spent = new Map<TimingLayer, Spent>();
  private readonly startWall = performance.now();
  private readonly startCpu = process.cpuUsage();

  add(layer: TimingLayer, wallMs: number, cpuMs: number): void {
    const spent = this.spent.get(layer);
    if (spent) {
      spent.wallMs += wallMs;
      spent.cpuMs += cpuMs;
    } else this.spent.set(layer, { wallMs, cpuMs });
  }

  /**
   * The Server-Timing header: `<layer>;dur=<wall ms>` and `<layer>-cpu;dur=<cpu ms>` per layer that
   * took part, then `total` and `total-cpu` from the request's start until now.
   */
  header(): string {
    const entries: string[] = [];
    const entry = (name: string, { wallMs, cpuMs }: Spent) =>
      entries.push(`${name};dur=${wallMs.toFixed(3)}`, `${name}-cpu;dur=${cpuMs.toFixed(3)}`);
    for (const layer of TIMING_LAYERS) {
      const spent = this.spent.get(layer);
      if (spent) entry(layer, spent);
    }
    entry('total', { wallMs: performance.now() - this.startWall, cpuMs: cpuMsSince(this.startCpu) });
    return entries.join(', ');
  }
}

/** The request being timed, and the time its inner layers took of the layer now open. */
interface Frame {
  readonly timing: RequestTiming;
  childWallMs: number;
  childCpuMs: number;
}

const current = new AsyncLocalStorage<Frame>();

/** Runs a request's handling with `timing` as the request that `timed` calls inside it add to. */
export function withRequestTiming<T>(timing: RequestTiming, handle: () => T): T {
  return current.run({ timing, childWallMs: 0, childCpuMs: 0 }, handle);
}

/**
 * Runs `work` as one layer of the request being timed, if any (otherwise it only runs it: no
 * clock is read). Costs two clock reads and an AsyncLocalStorage frame when timing is on.
 */
export async function timed<T>(layer: TimingLayer, work: () => Promise<T>): Promise<T> {
  const layerFrame = openLayer(layer);
  if (layerFrame === undefined) return work();
  try {
    return await current.run(layerFrame.frame, work);
  } finally {
    layerFrame.close();
  }
}

/** `timed` for synchronous work. */
export function timedSync<T>(layer: TimingLayer, work: () => T): T {
  const layerFrame = openLayer(layer);
  if (layerFrame === undefined) return work();
  try {
    return current.run(layerFrame.frame, work);
  } finally {
    layerFrame.close();
  }
}

/**
 * Starts a layer that is not one call (a wait for a slot); the returned function ends it. A no-op
 * when no request is being timed.
 */
export function startLayer(layer: TimingLayer): () => void {
  return openLayer(layer)?.close ?? NO_OP;
}

const NO_OP = () => undefined;

/**
 * A frame for `layer` inside the current one, and the function that ends it: its time, less its
 * inner layers', goes to the layer, all of it to the parent's inner time. Undefined when no
 * request is being timed.
 */
function openLayer(layer: TimingLayer): { frame: Frame; close: () => void } | undefined {
  const parent = current.getStore();
  if (parent === undefined) return undefined;
  const frame: Frame = { timing: parent.timing, childWallMs: 0, childCpuMs: 0 };
  const startWall = performance.now();
  const startCpu = process.cpuUsage();
  const close = () => {
    const wallMs = performance.now() - startWall;
    const cpuMs = cpuMsSince(startCpu);
    parent.childWallMs += wallMs;
    parent.childCpuMs += cpuMs;
    frame.timing.add(layer, Math.max(0, wallMs - frame.childWallMs), Math.max(0, cpuMs - frame.childCpuMs));
  };
  return { frame, close };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
