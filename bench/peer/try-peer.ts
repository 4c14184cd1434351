/**
 * Tries the PostgreSQL peer on its own: start (installing if needed), load a generated DuckDB
 * file, verify the mix's SQL against the service's, and run each report with pgbench.
 *
 *   node --import tsx bench/peer/try-peer.ts [path/to/adreport.duckdb] [--dir bench/out/postgres] [--seconds 5]
 *
 * Organization 1, the ranges ending on the data's last day.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFacts, pgbench, startPostgres } from './postgres.js';
import { factsLastDay, MIX_NAMES, mixParams, PEER_QUERIES, verifyPeerQueries } from './report-queries.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLIENTS = [1, 16];
const WARMUP_SECONDS = 1;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const positional = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const duckdbPath = path.resolve(positional[0] ?? path.join(root, 'bench', 'out', 'scale-10', 'adreport.duckdb'));
  const dir = path.resolve(option('--dir') ?? path.join(root, 'bench', 'out', 'postgres'));
  const seconds = Number(option('--seconds') ?? 5);
  const log = (line: string) => console.error(line);

  const peer = await startPostgres({ dir, log });
  try {
    const load = await loadFacts(peer, duckdbPath, log);
    const lastDay = await factsLastDay(duckdbPath);
    const verified = await verifyPeerQueries(peer, duckdbPath, { organizationId: 1, lastDay });
    log(`verified against the service's SQL: ${MIX_NAMES.map((n) => `${n} ${verified[n]} rows`).join(', ')}`);

    const lines = [
      `${peer.version}, port ${peer.port}; ${load.rows} rows loaded in ${load.seconds.toFixed(1)} s${load.reused ? ' (earlier load reused)' : ''}; organization 1, last day ${lastDay}`,
      '',
      '| query | clients | tps | p50 ms | p99 ms | transactions | server CPU ms/tx |',
      '|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (const name of MIX_NAMES) {
      const sql = PEER_QUERIES[name](mixParams(name, 1, lastDay));
      await pgbench(peer, sql, 2, WARMUP_SECONDS);
      for (const clients of CLIENTS) {
        const r = await pgbench(peer, sql, clients, seconds);
        log(`${name} x${clients}: ${r.tps.toFixed(1)} tps`);
        lines.push(
          `| ${name} | ${clients} | ${r.tps.toFixed(1)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.transactions} | ${r.serverCpuMsPerTx.toFixed(1)} |`,
        );
      }
    }
    console.log(lines.join('\n'));
  } finally {
    await peer.stop();
  }
}

await main();
