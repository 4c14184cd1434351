/**
 * One autocannon run in its own process, so the load generator does not share the event loop
 * of the server it measures (bench/run.ts serves in-process to watch that loop). Options come as
 * JSON in argv[2] (autocannon's, plus `requests` cycling per connection); starts on a line on
 * stdin after printing "ready", and prints one JSON line.
 *
 *   node --import tsx bench/load-child.ts '{"url":"https://...","connections":16,"duration":10}'
 */
import autocannon from 'autocannon';
import { readyThenWaitForGo } from './lib.js';

const options = JSON.parse(process.argv[2] ?? '{}') as autocannon.Options;
await readyThenWaitForGo();
const result = await autocannon(options);
console.log(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }),
);
