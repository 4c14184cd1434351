import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, stopServe, type CliResult, type ServeProcess } from '../helpers/cli.js';
import { basic, FORM, HttpClient, type HttpResponse } from '../helpers/http.js';
import { poll } from '../helpers/poll.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { tempDir } from '../helpers/server.js';
import { startReceiver, verifySignature, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * `adreport migrate-store` (issue 37 item 5) end to end with the built bin: an embedded
 * deployment made through the CLI and HTTP on a DuckDB file, copied into a private PostgreSQL 15,
 * then served by `serve --store URL --files-dir DIR` and checked through HTTPS: the same clients,
 * tokens, accounts, jobs and webhooks, ids continuing after the copied ones.
 */

const P = '/provisioning/v0';
/** The sandbox's GOOGLE_ADS manager account (src/demo/demo-seed.ts links it too). */
const SANDBOX_GOOGLE_MANAGER = '512-384-9061';

const dir = tempDir('adreport-migrate-store-');
const db = path.join(dir, 'embedded', 'adreport.duckdb');
const filesDir = path.join(dir, 'shared');
let pg: TestPostgres;
let receiver: Receiver;
let storeUrl: string;
let env: Record<string, string>;
const servers: ServeProcess[] = [];
const clients: HttpClient[] = [];

beforeAll(async () => {
  [pg, receiver] = await Promise.all([
    startTestPostgres('adreport-pg-migrate-'),
    startReceiver(path.join(dir, 'receiver')),
  ]);
  storeUrl = await pg.createDatabase();
  env = {
    ADREPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
    ADREPORT_WEBHOOK_CA_FILE: receiver.caFile,
    ADREPORT_WEBHOOK_POLL_MS: '50',
  };
});

afterAll(async () => {
  for (const client of clients) client.close();
  for (const serve of servers)
    if (serve.child.exitCode === null && serve.child.signalCode === null) await stopServe(serve);
  await receiver?.close();
  await pg?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function tokenFrom(http: HttpClient, clientId: string, clientSecret: string): Promise<HttpResponse> {
  return http.request('POST', '/token', {
    headers: { authorization: basic(clientId, clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
}

function post(http: HttpClient, token: string, target: string, body: unknown): Promise<HttpResponse> {
  return http.request('POST', target, {
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** What a client reads of its organization's provisioning state, as the bodies' text. */
async function snapshot(http: HttpClient, token: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const target of [
    `${P}/accounts`,
    `${P}/accounts?labels=tier%3Agold`,
    `${P}/accounts/id/1`,
    `${P}/adplatform-accounts`,
    `${P}/adplatform-master-accounts`,
    `${P}/jobs`,
    `${P}/webhooks`,
    `${P}/webhooks/id/1/deliveries`,
    `${P}/organization`,
    '/reporting/v0/views',
    '/reporting/v0/views/id/1',
  ]) {
    const res = await http.get(target, bearer(token));
    expect(res.status, `${target}: ${res.text}`).toBe(200);
    out[target] = res.text;
  }
  return out;
}

/** A refusal: exit 1 and exactly one line on stderr, nothing on stdout. */
function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^adreport: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

const migrateStore = (from: string, extra: string[] = []) =>
  runCli(['migrate-store', '--from', from, '--to', storeUrl, '--files-dir', filesDir, ...extra]);

describe('adreport migrate-store', () => {
  let clientId: string;
  let clientSecret: string;
  let before: Record<string, string>;
  let tokenBefore: string;
  let webhook: { id: number; secret: string };
  let delivered: { eventId: string; deliveryId: number };
  let largestAccountId: number;

  it('copies an embedded deployment into PostgreSQL: the replicas serve the same clients, tokens, accounts and webhooks', async () => {
    // The embedded deployment: an organization, a client and a master account made with the CLI ...
    const org = await runCli(['orgs', 'create', '--name', 'Embedded Agency', '--db', db, '--json']);
    expect(org.code, org.stderr).toBe(0);
    const organizationId = JSON.parse(org.stdout).organization.id as number;
    const client = await runCli(['clients', 'create', '--org', String(organizationId), '--db', db, '--json']);
    expect(client.code, client.stderr).toBe(0);
    ({ clientId, clientSecret } = JSON.parse(client.stdout) as { clientId: string; clientSecret: string });
    const link = await runCli([
      ...['master-accounts', 'link', '--org', String(organizationId), '--platform', 'GOOGLE_ADS'],
      ...['--platform-id', SANDBOX_GOOGLE_MANAGER, '--db', db, '--json'],
    ]);
    expect(link.code, link.stderr).toBe(0);
    const masterId = JSON.parse(link.stdout).adPlatformMasterAccount.id as number;

    // ... then accounts with labels, a webhook and a job through HTTP to a server on the file.
    const embedded = await startServe(['--db', db], env);
    servers.push(embedded);
    const http = new HttpClient(embedded.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
    clients.push(http);
    const issued = await tokenFrom(http, clientId, clientSecret);
    expect(issued.status, issued.text).toBe(200);
    tokenBefore = issued.json.access_token as string;
    const accountIds: number[] = [];
    for (const [i, labels] of [{ tier: 'gold', crm: 'C-1' }, { tier: 'silver' }, {}].entries()) {
      const res = await post(http, tokenBefore, `${P}/accounts`, {
        account: {
          name: `Embedded ${i}`,
          languageCode: 'de',
          countryCode: 'DE',
          currency: 'EUR',
          notes: i === 0 ? 'tabs\tand "quotes", {braces} and ümlauts' : null,
          field1: `crm-${i}`,
          field21: i === 0 ? 0.1 : 1e20,
          labels,
        },
      });
      expect(res.status, res.text).toBe(201);
      accountIds.push(res.json.account.id as number);
    }
    largestAccountId = Math.max(...accountIds);
    const hook = await post(http, tokenBefore, `${P}/webhooks`, {
      webhook: { url: `${receiver.url}/migrated`, events: ['job.succeeded', 'job.failed'], description: 'before' },
    });
    expect(hook.status, hook.text).toBe(201);
    webhook = hook.json.webhook as { id: number; secret: string };
    // A saved view (issue 43): tenant state that moves with the rest.
    const view = await post(http, tokenBefore, '/reporting/v0/views', {
      view: {
        name: 'Moved view',
        endpoint: 'campaigns',
        query: { segments: 'Day', formulas: ['a:statistics.clicks:Integer'] },
      },
    });
    expect(view.status, view.text).toBe(201);
    expect(view.json.view.id).toBe(1);
    const job = await post(http, tokenBefore, `${P}/adplatform-master-accounts/id/${masterId}/adplatform-accounts`, {
      adPlatformAccount: { name: 'Made before the move', currency: 'EUR', timeZone: 'Europe/Berlin' },
    });
    expect(job.status, job.text).toBe(202);
    const finished = await poll('the CREATE_ADPLATFORM_ACCOUNT job', async () => {
      const res = await http.get(`${P}/jobs/id/${job.json.job.id}`, bearer(tokenBefore));
      return res.json.job.status === 'SUCCEEDED' ? res.json.job : undefined;
    });
    const platformAccount = finished.result.adPlatformAccount as { adPlatformType: string; adPlatformId: string };
    const linked = await post(http, tokenBefore, `${P}/accounts/id/1/adplatform-accounts`, {
      adPlatformAccount: { adPlatformType: platformAccount.adPlatformType, adPlatformId: platformAccount.adPlatformId },
    });
    expect(linked.status, linked.text).toBe(201);
    delivered = await poll('the delivery of job.succeeded', async () => {
      const res = await http.get(`${P}/webhooks/id/${webhook.id}/deliveries?status=DELIVERED`, bearer(tokenBefore));
      const entry = (res.json.deliveries as Array<{ id: number; eventId: string }>)[0];
      return entry && { eventId: entry.eventId, deliveryId: entry.id };
    });
    before = await snapshot(http, tokenBefore);
    expect(JSON.parse(before[`${P}/accounts/id/1`]!).account.linkedAdPlatformAccounts).toHaveLength(1);

    // While the server holds the file: refused, one line, PostgreSQL untouched.
    expectOneLineRefusal(
      await migrateStore(db),
      /is held by a running process \(pid \d+\), usually the adreport server; stop it before migrate-store/,
    );
    expect(await pg.query(dbName(), 'SELECT to_regclass($1) AS t', ['organizations'])).toEqual([{ t: null }]);
    expect(await stopServe(embedded)).toBe(0);

    // The move.
    const moved = await migrateStore(db, ['--json']);
    expect(moved.code, moved.stderr).toBe(0);
    const summary = JSON.parse(moved.stdout);
    expect(summary.tables).toMatchObject({
      organizations: 1,
      api_clients: 1,
      accounts: 3,
      account_labels: 3,
      adplatform_master_accounts: 1,
      account_adplatform_links: 1,
      webhooks: 1,
      webhook_deliveries: 1,
      jobs: 1,
      report_views: 1,
    });
    expect(summary.tables.events).toBeGreaterThanOrEqual(1);
    for (const skipped of ['fact_ad_daily', 'rollup_campaign_daily', 'call_details', 'statistics_sources', 'fx_rates'])
      expect(summary.tables[skipped], skipped).toBeUndefined();
    expect(summary.notCopied.map((t: { table: string }) => t.table)).toEqual(
      expect.arrayContaining(['fact_ad_daily', 'statistics_sources', 'fx_rates', 'work_leases', 'schema_migrations']),
    );
    expect(summary.rows).toBe(Object.values(summary.tables as Record<string, number>).reduce((a, b) => a + b, 0));
    expect(summary.sequences.account_id_seq).toBeGreaterThanOrEqual(largestAccountId);
    expect(summary.keyFiles.map((f: { status: string }) => f.status)).toEqual(['copied', 'copied']);
    expect(summary.to).toBe(storeUrl);
    expect(typeof summary.seconds).toBe('number');
    // Progress on stderr, one line per table.
    expect(moved.stderr).toContain('copied accounts: 3 rows\n');
    expect(moved.stderr).toContain('copied account_labels: 3 rows\n');
    // The key files went along, byte for byte, owner-only.
    for (const [from, to] of [
      [`${db}.token-keys.json`, path.join(filesDir, 'adreport.token-keys.json')],
      [`${db}.webhook-key`, path.join(filesDir, 'adreport.webhook-key')],
    ] as const) {
      expect(fs.readFileSync(to, 'utf8'), to).toBe(fs.readFileSync(from, 'utf8'));
      expect(fs.statSync(to).mode & 0o777, to).toBe(0o600);
    }

    // The PostgreSQL deployment.
    const replica = await startServe(['--store', storeUrl, '--files-dir', filesDir], env);
    servers.push(replica);
    const onPostgres = new HttpClient(
      replica.listening.url,
      fs.readFileSync(path.join(filesDir, 'adreport.tls', 'cert.pem'), 'utf8'),
    );
    clients.push(onPostgres);
    // A token issued before the move is accepted, and reads what it read before, byte for byte.
    expect(await snapshot(onPostgres, tokenBefore)).toEqual(before);
    // The client's credentials still get tokens.
    const fresh = await tokenFrom(onPostgres, clientId, clientSecret);
    expect(fresh.status, fresh.text).toBe(200);
    const token = fresh.json.access_token as string;
    // New ids continue after the copied ones.
    const created = await post(onPostgres, token, `${P}/accounts`, {
      account: { name: 'Made after the move', languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.account.id).toBeGreaterThan(largestAccountId);
    const view2 = await post(onPostgres, token, '/reporting/v0/views', {
      view: { name: 'Made after the move', endpoint: 'ads' },
    });
    expect(view2.status, view2.text).toBe(201);
    expect(view2.json.view.id).toBeGreaterThan(1);
    expect(
      (await post(onPostgres, token, '/reporting/v0/views', { view: { name: 'Moved view', endpoint: 'ads' } })).status,
    ).toBe(409);
    // The webhook's sealed secret opens with the copied key: a redelivery of the event from before
    // the move carries the same event id and is signed with the secret given at creation.
    const redo = await onPostgres.request(
      'POST',
      `${P}/webhooks/id/${webhook.id}/deliveries/id/${delivered.deliveryId}/redeliveries`,
      { headers: bearer(token) },
    );
    expect(redo.status, redo.text).toBe(202);
    expect(redo.json.delivery.id).toBeGreaterThan(delivered.deliveryId);
    const copies = await poll('the redelivery', () => {
      const got = receiver.received.filter((r) => r.headers['adreport-event-id'] === delivered.eventId);
      return got.length >= 2 ? got : undefined;
    });
    expect(copies[1]!.body).toBe(copies[0]!.body);
    expect(
      verifySignature(
        webhook.secret,
        copies[1]!.headers['adreport-signature'] as string,
        copies[1]!.body,
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(true);
  });

  it('refuses a second copy into the store that now holds organizations, and a --from that does not exist: one line, exit 1', async () => {
    const organizations = async () => (await pg.query(dbName(), 'SELECT count(*)::int AS n FROM organizations'))[0];
    const keysBefore = fs.readFileSync(path.join(filesDir, 'adreport.token-keys.json'), 'utf8');
    expectOneLineRefusal(
      await migrateStore(db),
      /already holds 1 organization; migrate-store copies into an empty store only, never merging two deployments/,
    );
    expect(await organizations()).toEqual({ n: 1 });
    expect(fs.readFileSync(path.join(filesDir, 'adreport.token-keys.json'), 'utf8')).toBe(keysBefore);

    const missing = path.join(dir, 'nowhere', 'adreport.duckdb');
    expectOneLineRefusal(await migrateStore(missing), /nowhere\/adreport\.duckdb does not exist; check --from/);
    expect(fs.existsSync(path.dirname(missing))).toBe(false);
  });
});

function dbName(): string {
  return new URL(storeUrl).pathname.slice(1);
}
