/**
 * A constant-rate open-loop load in its own process: request i is due at start + i / rate, sent
 * then whether or not earlier ones have answered (a new keep-alive connection when all are busy),
 * and its latency runs from when it was due to the end of its body, so a stalled server is
 * charged for every request it kept waiting (no coordinated omission).
 *
 * Why not autocannon's `overallRate`: autocannon 9 lets each connection send back to back until
 * its quota of the current second is used, then pause to the next second, so all connections
 * burst together at every second boundary; and it "corrects" latencies with an expected interval
 * of ceil(1 / rate) = 1 ms (seconds taken for milliseconds), which adds a synthetic sample for
 * every millisecond of each response. Both inflate p99 / p50.
 *
 *   node --import tsx bench/open-loop-child.ts '{"base":"https://...","ca":"...","rate":20,"duration":10,"requests":[...]}'
 * starts on a line on stdin after printing "ready"; prints one JSON line: overall and
 * per-request-name p50 / p99 in ms.
 */
import https from 'node:https';
import { readyThenWaitForGo, type LoadRun } from './lib.js';

export interface OpenLoopOptions {
  base: string;
  /** PEM of the server's certificate. */
  ca: string;
  /** Requests per second. */
  rate: number;
  duration: number;
  /** Cycled in order, as autocannon cycles `requests`. */
  requests: ReadonlyArray<{ name: string; path: string; headers: Record<string, string> }>;
  timeoutSeconds?: number;
}

export interface OpenLoopResult extends LoadRun {
  /** The most connections open at once. */
  connections: number;
  byName: Record<string, { p50: number; p99: number; requests: number }>;
}

const options = JSON.parse(process.argv[2] ?? '{}') as OpenLoopOptions;
const agent = new https.Agent({ keepAlive: true, maxSockets: Infinity, ca: options.ca });
const timeoutMs = (options.timeoutSeconds ?? 60) * 1000;
const url = new URL(options.base);

function send(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      { agent, hostname: url.hostname, port: url.port, path, headers, timeout: timeoutMs },
      (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
  });
}

const latencies = new Map<string, number[]>(options.requests.map((r) => [r.name, []]));
let non2xx = 0;
let errors = 0;
let inFlight = 0;
let maxInFlight = 0;
const pending: Array<Promise<void>> = [];
const total = Math.round(options.rate * options.duration);
await readyThenWaitForGo();
const intervalMs = 1000 / options.rate;
const start = performance.now();

for (let i = 0; i < total;) {
  const now = performance.now();
  // Everything already due goes out now, each charged from when it was due.
  for (; i < total && start + i * intervalMs <= now; i++) {
    const due = start + i * intervalMs;
    const request = options.requests[i % options.requests.length]!;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    pending.push(
      send(request.path, request.headers)
        .then(
          (status) => {
            if (status >= 200 && status < 300) latencies.get(request.name)!.push(performance.now() - due);
            else non2xx++;
          },
          () => void errors++,
        )
        .finally(() => void inFlight--),
    );
  }
  if (i < total)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + i * intervalMs - performance.now())));
}
await Promise.all(pending);
agent.destroy();

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const summary = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), requests: sorted.length };
};
const all = summary([...latencies.values()].flat());
const result: OpenLoopResult = {
  rps: all.requests / options.duration,
  p50: all.p50,
  p99: all.p99,
  requests: all.requests,
  non2xx,
  errors,
  connections: maxInFlight,
  byName: Object.fromEntries([...latencies].map(([name, values]) => [name, summary(values)])),
};
console.log(JSON.stringify(result));
