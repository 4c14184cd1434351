/**
 * Load test of the HTTPS service at 16 connections: `POST /token` (client_credentials), the
 * cheapest authenticated read, account create (one write transaction each), account get and a
 * page of 100 accounts. Starts `node dist/cli.cjs serve --demo` on a temp database with rate
 * limits lifted.
 *
 *   npm run build && node --import tsx bench/http-load.ts [--quick]
 *
 * Full: 3 runs x 10 s per endpoint; --quick: 1 run x 3 s. Writes bench/out/http-load.md.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { CONNECTIONS, measure, post, report, startServer, stopServer, type Run } from './lib.js';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 1 : 3;
const DURATION_S = quick ? 3 : 10;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ACCOUNT_BODY = JSON.stringify({
  account: {
    name: 'Bench GmbH',
    languageCode: 'de',
    countryCode: 'DE',
    currency: 'EUR',
    field1: 'x',
    field21: 1.5,
    labels: { clientId: 'C-1', tier: 'gold' },
  },
});

async function main(): Promise<number> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adreport-bench-'));
  const { child, ready } = startServer(path.join(tmp, 'bench.duckdb'), ['--demo']);
  try {
    const { port, demo } = await ready;
    if (!demo) throw new Error('no demo credentials (database not fresh?)');
    const base = `https://127.0.0.1:${port}`;
    const basic = `Basic ${Buffer.from(`${demo.clientId}:${demo.clientSecret}`).toString('base64')}`;

    const ca = readFileSync(path.join(tmp, 'bench.duckdb.tls', 'cert.pem'), 'utf8');
    const fetchToken = async () =>
      (
        (await post(`${base}/token`, { authorization: basic, ...FORM }, 'grant_type=client_credentials', ca)) as {
          access_token: string;
        }
      ).access_token;
    for (let i = 0; i < 5; i++) await fetchToken(); // warm-up
    const token = await fetchToken();
    const bearer = { authorization: `Bearer ${token}` };
    const json = { ...bearer, 'content-type': 'application/json' };
    const accountIds: number[] = [];
    for (let i = 0; i < 100; i++)
      accountIds.push(
        ((await post(`${base}/provisioning/v0/accounts`, json, ACCOUNT_BODY, ca)) as { account: { id: number } })
          .account.id,
      );

    const targets: Record<string, autocannon.Options> = {
      'POST /token': {
        url: `${base}/token`,
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      },
      'GET /provisioning/v0/organization': { url: `${base}/provisioning/v0/organization`, headers: bearer },
      'POST /provisioning/v0/accounts': {
        url: `${base}/provisioning/v0/accounts`,
        method: 'POST',
        headers: json,
        body: ACCOUNT_BODY,
      },
      'GET /provisioning/v0/accounts/id/{id}': {
        url: `${base}/provisioning/v0/accounts/id/${accountIds[50]}`,
        headers: bearer,
      },
      'GET /provisioning/v0/accounts?limit=100': { url: `${base}/provisioning/v0/accounts?limit=100`, headers: bearer },
    };
    const results: Record<string, Run[]> = await measure(targets, RUNS, DURATION_S);

    return report(
      'http-load',
      [
        `command: \`node --import tsx bench/http-load.ts${quick ? ' --quick' : ''}\``,
        `${CONNECTIONS} connections, ${RUNS} run(s) x ${DURATION_S} s per endpoint, rate limits lifted`,
      ],
      results,
    );
  } finally {
    await stopServer(child);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
