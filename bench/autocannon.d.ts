// Minimal types for the parts of autocannon 9 that the benches use (no @types package exists).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      tlsOptions?: import('node:tls').ConnectionOptions;
      /** Requests per second over all connections (open loop: latencies corrected for coordinated omission). */
      overallRate?: number;
      /** Seconds before a request counts as timed out (default 10). */
      timeout?: number;
      /** Cycled through by every connection. */
      requests?: Array<{ method?: string; path?: string; headers?: Record<string, string>; body?: string }>;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
      total?: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
