import type { ContractReport } from './run-contract.js';

/** The server the contract test talks to: throttling out of the way, so a 429 is a finding. */
export const CONTRACT_SERVER_CONFIG = {
  rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000, tokenRatePerSecond: 1_000_000, tokenBurst: 1_000_000 },
  // Generated report jobs arrive faster than they run; the 429 of the limit has its own test (report-jobs.test.ts).
  reportJobs: { maxUnfinishedPerOrganization: 1000 },
};

/** Counts to quote, then each failure with the request that found it, and the seed to replay. */
export function summarize(report: ContractReport, elapsedMs: number): string {
  const kinds = Object.entries(report.byKind)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const lines = [
    `contract: ${report.operations} operations, ${report.requests} requests (${kinds}), ${report.failures.length} failures, ${(elapsedMs / 1000).toFixed(1)} s, seed ${report.seed}`,
  ];
  const distinct = new Map<string, { count: number; example: (typeof report.failures)[number] }>();
  for (const failure of report.failures) {
    const key = `${failure.operationId} ${failure.kind} ${failure.problem.replace(/\d+/g, 'N').slice(0, 120)}`;
    const seen = distinct.get(key);
    if (seen) seen.count++;
    else distinct.set(key, { count: 1, example: failure });
  }
  for (const { count, example } of distinct.values()) {
    lines.push(`- ${example.operationId} (${example.kind}, ${count}x): ${example.problem}\n    ${example.request}`);
  }
  if (report.failures.length > 0) lines.push(`replay with: npm run test:contract -- --seed ${report.seed}`);
  return lines.join('\n');
}
