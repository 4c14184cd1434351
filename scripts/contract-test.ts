import { parseArgs } from 'node:util';
import { runContract } from '../test/helpers/contract/run-contract.js';
import { CONTRACT_SERVER_CONFIG, summarize } from '../test/helpers/contract/summary.js';
import { startTestServer } from '../test/helpers/server.js';

/**
 * `npm run test:contract -- --runs N [--invalid-runs M] [--seed S] [--verbose]`: the contract
 * test of `npm test`, longer. Exits 1 when anything disagrees with the document.
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    'invalid-runs': { type: 'string' },
    seed: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const server = await startTestServer(CONTRACT_SERVER_CONFIG);
const started = Date.now();
try {
  const report = await runContract(server, {
    runs,
    invalidRuns: values['invalid-runs'] === undefined ? runs : Number(values['invalid-runs']),
    seed,
    ...(values.verbose ? { log: (line: string) => console.log(line) } : {}),
  });
  console.log(summarize(report, Date.now() - started));
  process.exitCode = report.failures.length === 0 ? 0 : 1;
} finally {
  await server.close();
}
