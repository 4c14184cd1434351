/**
 * Requests one at a time over one keep-alive HTTPS connection for `duration` seconds, timed with
 * performance.now(): autocannon's latencies are whole milliseconds, too coarse for answers that
 * take a fraction of one (GET /health, a 304, a cache hit). Starts on a line on stdin after
 * printing "ready"; prints one JSON line (a LoadRun, latencies in ms).
 *
 *   node --import tsx bench/serial-child.ts '{"url":"https://...","ca":"...","headers":{},"duration":10}'
 */
import https from 'node:https';
import { readyThenWaitForGo, type LoadRun } from './lib.js';

export interface SerialOptions {
  url: string;
  /** PEM of the server's certificate. */
  ca: string;
  headers?: Record<string, string>;
  duration: number;
  /** The status every answer should have (default: any 2xx). */
  expectStatus?: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as SerialOptions;
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: options.ca });

function once(): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(options.url, { agent, headers: options.headers ?? {} }, (res) => {
        res.resume().on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

await readyThenWaitForGo();
const latencies: number[] = [];
let unexpected = 0;
let errors = 0;
const started = performance.now();
const until = started + options.duration * 1000;
while (performance.now() < until) {
  const t = performance.now();
  try {
    const status = await once();
    const ok = options.expectStatus === undefined ? status >= 200 && status < 300 : status === options.expectStatus;
    if (!ok) unexpected++;
  } catch {
    errors++;
  }
  latencies.push(performance.now() - t);
}
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
const run: LoadRun = {
  rps: latencies.length / seconds,
  p50: pct(0.5),
  p99: pct(0.99),
  requests: latencies.length,
  non2xx: unexpected,
  errors,
};
console.log(JSON.stringify(run));
agent.destroy();
