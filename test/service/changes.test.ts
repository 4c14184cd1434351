import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeCursors } from '../../src/changes/change-cursor.js';
import { purgeChangesBefore } from '../../src/changes/change-log.js';
import { serviceConfigSchema, filesAnchor } from '../../src/config/config.js';
import { queueTrailingSyncs } from '../../src/jobs/statistics-sync-queue.js';
import { startService, type RunningService } from '../../src/main.js';
import { importFxRates } from '../../src/reference/fx-import.js';
import { addDays, isoDate } from '../../src/shared/dates.js';
import { SecretBox, webhookKeyPathFor } from '../../src/webhooks/secret-box.js';
import { jsonRequest, linkedGoogleAccount, otherTenantToken } from '../helpers/accounts.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { waitForIdleJobs, waitForJob } from '../helpers/jobs.js';
import { tempDir, type TestServer } from '../helpers/server.js';

/*
 * The change feed (issue 24 item 3) through HTTP on a real service and DuckDB file, restarted on
 * the same file where a test says so. Expected rows come from what each test did (its days, ids),
 * never from the feed itself.
 */
const DAY = 24 * 3600_000;
const P = '/provisioning/v0';
const FEED = '/reporting/v0/changes';

const dir = tempDir('adreport-changes-');
const config = serviceConfigSchema.parse({
  dbPath: path.join(dir, 'adreport.duckdb'),
  host: '127.0.0.1',
  port: 0,
  demo: true,
  statistics: { backfillDays: 10 },
  rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
  jobs: { backoffBaseMs: 10, maxBackoffMs: 50, pollMs: 100 },
});
let clockOffset = 0;
const now = () => new Date(Date.now() + clockOffset);

let service: RunningService;
let http: HttpClient;
let credentials: { clientId: string; clientSecret: string };
/** What the helpers of test/helpers take: this file restarts the service itself, on one file. */
let server: TestServer;

async function start(): Promise<void> {
  service = await startService(config, { logError: () => undefined, nowMs: () => now().getTime() });
  if (service.demo?.created) credentials = service.demo.client;
  http = new HttpClient(service.url, service.tls?.cert);
  server = {
    service,
    http,
    dir,
    filesAnchor: filesAnchor(config),
    ...credentials,
    errors: [],
    logs: [],
    token: () => token(),
    close: () => stop(),
  };
}

async function stop(): Promise<void> {
  http.close();
  await service.close();
}

async function token(): Promise<string> {
  const res = await http.request('POST', '/token', {
    headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.json.access_token as string;
}

interface Change {
  platformAccountId: number | null;
  accountId: number | null;
  firstDay: string | null;
  lastDay: string | null;
  kind: string;
  changedAt: string;
}

/** Cursors sealed with the service's own key, as only the service (or whoever holds its key file) can. */
function serverCursors(): ChangeCursors {
  return new ChangeCursors(SecretBox.openFile(webhookKeyPathFor(config.dbPath)).derivedKey('change cursors'));
}

async function feed(bearer: string, query = ''): Promise<{ status: number; json: Record<string, any> }> {
  const res = await http.get(`${FEED}${query}`, { authorization: `Bearer ${bearer}` });
  return { status: res.status, json: res.json as Record<string, any> };
}

/** Every change after `since`, page by page, and the cursor to go on from. */
async function drain(bearer: string, since?: string, limit = 1000): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  let cursor = since;
  for (;;) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { since: cursor } : {}) });
    const res = await feed(bearer, `?${query}`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    changes.push(...(res.json.changes as Change[]));
    cursor = res.json.nextCursor as string;
    if (!res.json.hasMore) return { changes, cursor };
  }
}

/** The fields a test decides; changedAt is checked apart. */
const what = (c: Change) => ({
  kind: c.kind,
  platformAccountId: c.platformAccountId,
  accountId: c.accountId,
  firstDay: c.firstDay,
  lastDay: c.lastDay,
});

let bearer: string;
let accountId: number;
let platformAccountId: number;

beforeAll(async () => {
  await start();
  bearer = await token();
  ({ accountId, platformAccountId } = await linkedGoogleAccount(server, bearer, 'Feed'));
});
afterAll(async () => {
  await stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('GET /reporting/v0/changes', () => {
  it('lists a campaign import and its backfill, then exactly the day ranges a statistics sync replaced', async () => {
    const { cursor } = await drain(bearer);
    const connector = service.platforms.connector(1, 'GOOGLE_ADS');
    const [adPlatformId] = (
      await service.db.read((r) =>
        r.all<{ id: string }>('SELECT ad_platform_id AS id FROM adplatform_accounts WHERE id = $1', [
          platformAccountId,
        ]),
      )
    ).map((row) => row.id);
    const campaigns = await connector.listCampaigns(adPlatformId!);
    const imported = await jsonRequest(
      server,
      bearer,
      'POST',
      `${P}/adplatform-accounts/id/${platformAccountId}/campaigns`,
      {
        campaign: { adPlatformId: campaigns[0]!.adPlatformId, campaignGroup: 'Feed' },
      },
    );
    expect(imported.status).toBe(202);
    await waitForJob(server, bearer, imported.json.job.id);
    await waitForIdleJobs(server, bearer);
    // The import (every day: a new campaign), then its backfill of backfillDays: 10 (one chunk).
    const today = isoDate(now());
    const afterImport = await drain(bearer, cursor);
    expect(afterImport.changes.map(what)).toEqual([
      { kind: 'ENTITIES_CHANGED', platformAccountId, accountId: null, firstDay: null, lastDay: null },
      {
        kind: 'STATISTICS_REPLACED',
        platformAccountId,
        accountId: null,
        firstDay: addDays(today, -10),
        lastDay: today,
      },
    ]);

    // A 40-day trailing sync runs in 31-day chunks, one transaction each; the tree is unchanged, so no entity row.
    const [job] = await queueTrailingSyncs(service.db, service.jobs, now(), 40, 1);
    expect((await waitForJob(server, bearer, job!.id, undefined, 60_000)).status).toBe('SUCCEEDED');
    const from = addDays(today, -40);
    const afterSync = await drain(bearer, afterImport.cursor);
    expect(afterSync.changes.map(what)).toEqual([
      { kind: 'STATISTICS_REPLACED', platformAccountId, accountId: null, firstDay: from, lastDay: addDays(from, 30) },
      { kind: 'STATISTICS_REPLACED', platformAccountId, accountId: null, firstDay: addDays(from, 31), lastDay: today },
    ]);
    for (const change of afterSync.changes)
      expect(Math.abs(Date.parse(change.changedAt) - Date.now())).toBeLessThan(120_000);

    // The platform renames the campaign: the next sync's tree refresh lists it, before its days.
    await connector.pushChange(adPlatformId!, {
      kind: 'RENAME',
      entity: 'CAMPAIGN',
      adPlatformId: campaigns[0]!.adPlatformId,
      name: 'Renamed at the platform',
    });
    const [renamed] = await queueTrailingSyncs(service.db, service.jobs, now(), 3, 1);
    expect((await waitForJob(server, bearer, renamed!.id, undefined, 60_000)).status).toBe('SUCCEEDED');
    expect((await drain(bearer, afterSync.cursor)).changes.map(what)).toEqual([
      { kind: 'ENTITIES_CHANGED', platformAccountId, accountId: null, firstDay: null, lastDay: null },
      { kind: 'STATISTICS_REPLACED', platformAccountId, accountId: null, firstDay: addDays(today, -3), lastDay: today },
    ]);
  }, 300_000);

  it('lists link changes, account edits, markups and an FX import with their kinds and days', async () => {
    const { cursor } = await drain(bearer);
    const link = `${P}/accounts/id/${accountId}/adplatform-accounts/id/${platformAccountId}`;
    expect(
      (await jsonRequest(server, bearer, 'PATCH', link, { adPlatformAccount: { status: 'READ_ONLY' } })).status,
    ).toBe(200);
    expect(
      (
        await jsonRequest(
          server,
          bearer,
          'PATCH',
          `${P}/accounts/id/${accountId}`,
          { account: { name: 'Feed renamed' } },
          'application/merge-patch+json',
        )
      ).status,
    ).toBe(200);
    const markup = await jsonRequest(server, bearer, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate: 0.1, startDate: '2026-03-01', endDate: '2026-03-31' },
    });
    expect(markup.status).toBe(201);
    const open = await jsonRequest(server, bearer, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate: 0.2, startDate: '2026-05-01' },
    });
    expect(open.status).toBe(201);
    const gone = await http.request('DELETE', `${P}/accounts/id/${accountId}/markups/id/${markup.json.markup.id}`, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(gone.status).toBe(204);
    await importFxRates(service.db, 'date,currency,unitsPerEur\n2026-02-02,USD,1.0800\n2026-02-03,USD,1.0900\n', {
      now: new Date('2026-03-01T00:00:00Z'),
    });
    const [campaign] = await service.db.read((r) =>
      r.all<{ id: number }>('SELECT id FROM campaigns WHERE adplatform_account_id = $1', [platformAccountId]),
    );
    const labels = await jsonRequest(server, bearer, 'PUT', `${P}/campaigns/id/${campaign!.id}/labels`, {
      labels: { tier: 'gold' },
    });
    expect(labels.status).toBe(200);
    const unlinked = await http.request('DELETE', link, { headers: { authorization: `Bearer ${bearer}` } });
    expect(unlinked.status).toBe(204);

    const { changes } = await drain(bearer, cursor);
    expect(changes.map(what)).toEqual([
      { kind: 'LINK_CHANGED', platformAccountId, accountId, firstDay: null, lastDay: null },
      { kind: 'ENTITIES_CHANGED', platformAccountId: null, accountId, firstDay: null, lastDay: null },
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId,
        firstDay: '2026-03-01',
        lastDay: '2026-03-31',
      },
      { kind: 'FX_OR_MARKUP_CHANGED', platformAccountId: null, accountId, firstDay: '2026-05-01', lastDay: null },
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId,
        firstDay: '2026-03-01',
        lastDay: '2026-03-31',
      },
      // Rates of 2 and 3 February: no later import of USD, so no day after the 3rd changed.
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId: null,
        firstDay: '2026-02-02',
        lastDay: '2026-02-03',
      },
      { kind: 'ENTITIES_CHANGED', platformAccountId, accountId: null, firstDay: null, lastDay: null },
      { kind: 'LINK_CHANGED', platformAccountId, accountId, firstDay: null, lastDay: null },
    ]);
    // A failed write records nothing: an overlapping markup is refused whole.
    const refused = await jsonRequest(server, bearer, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate: 0.3, startDate: '2026-05-10', endDate: '2026-05-20' },
    });
    expect(refused.status).toBe(422);
    expect((await drain(bearer, cursor)).changes).toHaveLength(changes.length);
  });

  it('lists the days an FX import changed: its own, and those its last rate now fills before a later import', async () => {
    const { cursor } = await drain(bearer);
    const importAt = (csv: string) =>
      importFxRates(service.db, `date,currency,unitsPerEur\n${csv}`, { now: new Date('2026-09-01T00:00:00Z') });
    // GBP on 1 and 8 July: the 2nd to the 7th carry the 1st's rate.
    await importAt('2026-07-01,GBP,0.8500\n2026-07-08,GBP,0.8600\n');
    // One day, the 3rd: its rate now fills the 4th to the 7th (the day before the next imported rate).
    await importAt('2026-07-03,GBP,0.8550\n');
    // One day with no later import of its currency: that day alone.
    await importAt('2026-08-03,GBP,0.8700\n');
    const fx = (await drain(bearer, cursor)).changes.map(what).filter((c) => c.kind === 'FX_OR_MARKUP_CHANGED');
    expect(fx).toEqual([
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId: null,
        firstDay: '2026-07-01',
        lastDay: '2026-07-08',
      },
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId: null,
        firstDay: '2026-07-03',
        lastDay: '2026-07-07',
      },
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId: null,
        firstDay: '2026-08-03',
        lastDay: '2026-08-03',
      },
    ]);
  });

  it('lists nothing for a PUT, PATCH or label write that changes nothing, and the one field that did change', async () => {
    const { cursor } = await drain(bearer);
    const account = `${P}/accounts/id/${accountId}`;
    const stored = (await http.get(account, { authorization: `Bearer ${bearer}` })).json.account;
    const { id, language, country, linkedAdPlatformAccounts, ...same } = stored;
    expect(id).toBe(accountId);
    expect(linkedAdPlatformAccounts).toBeInstanceOf(Array);
    const unchanged = { ...same, languageCode: language, countryCode: country };
    const writes = [
      await jsonRequest(server, bearer, 'PUT', account, { account: unchanged }),
      await jsonRequest(
        server,
        bearer,
        'PATCH',
        account,
        { account: { name: stored.name } },
        'application/merge-patch+json',
      ),
      await jsonRequest(server, bearer, 'PUT', `${account}/labels`, { labels: stored.labels }),
      await jsonRequest(server, bearer, 'PATCH', `${account}/labels`, { labels: { absentLabel: null } }),
    ];
    expect(writes.map((w) => w.status)).toEqual([200, 200, 200, 200]);
    expect((await drain(bearer, cursor)).changes).toEqual([]);
    const changed = await jsonRequest(
      server,
      bearer,
      'PATCH',
      account,
      { account: { field2: 'now set' } },
      'application/merge-patch+json',
    );
    expect(changed.status).toBe(200);
    const after = (await http.get(account, { authorization: `Bearer ${bearer}` })).json.account;
    expect(after).toEqual({ ...stored, field2: 'now set' });
    expect((await drain(bearer, cursor)).changes.map(what)).toEqual([
      { kind: 'ENTITIES_CHANGED', platformAccountId: null, accountId, firstDay: null, lastDay: null },
    ]);
  });

  it('lists a link the platform made NO_ACCESS once, however often the platform refuses', async () => {
    const linked = await linkedGoogleAccount(server, bearer, 'Revoked');
    const { cursor } = await drain(bearer);
    service.platforms.setFaults('*', 'GOOGLE_ADS', { revoked: true });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await http.get(`${P}/adplatform-accounts/id/${linked.platformAccountId}/available-campaigns`, {
          authorization: `Bearer ${bearer}`,
        });
        expect(res.status).toBe(422);
      }
    } finally {
      service.platforms.clearFaults();
    }
    expect((await drain(bearer, cursor)).changes.map(what)).toEqual([
      {
        kind: 'LINK_CHANGED',
        platformAccountId: linked.platformAccountId,
        accountId: null,
        firstDay: null,
        lastDay: null,
      },
    ]);
  });

  it('pages with limit and nextCursor through every change once, in order', async () => {
    const whole = await drain(bearer, undefined, 1000);
    const stored = await service.db.read((r) =>
      r.one<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM changes WHERE organization_id = 1 OR organization_id IS NULL',
      ),
    );
    expect(whole.changes.length).toBe(stored!.n);
    expect(whole.changes.length).toBeGreaterThan(10);
    const paged = await drain(bearer, undefined, 3);
    expect(paged.changes).toEqual(whole.changes);
    const times = whole.changes.map((c) => Date.parse(c.changedAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // A page of exactly the rest says there is no more, and its cursor lists nothing new.
    const first = await feed(bearer, '?limit=1');
    expect(first.json.changes).toHaveLength(1);
    expect(first.json.hasMore).toBe(true);
    const end = await feed(bearer, `?since=${whole.cursor}`);
    expect(end.json).toMatchObject({ changes: [], hasMore: false });
  });

  it('answers 400 for a malformed cursor or limit, naming the parameter', async () => {
    const made = (text: string) => Buffer.from(text).toString('base64url');
    for (const since of [
      'x',
      'not a cursor',
      made('c1.1.5'),
      made('c2.1.5.1700000000000'),
      made('c1.1.-5.1700000000000'),
      '%00',
    ]) {
      const res = await feed(bearer, `?since=${encodeURIComponent(since)}`);
      expect(res.status, since).toBe(400);
      expect(res.json.error).toMatchObject({ status: 400, code: 'invalid_cursor', details: [{ field: 'since' }] });
    }
    for (const limit of ['0', '1001', 'ten', '-1']) {
      const res = await feed(bearer, `?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'invalid_parameter', details: [{ field: 'limit' }] });
    }
    expect((await feed(bearer, '?cursor=abc')).json.error.code).toBe('unknown_parameter');
  });

  it("keeps tenants apart: another organization's changes and cursors never cross", async () => {
    const other = await otherTenantToken(server);
    const { changes: mine, cursor: myCursor } = await drain(bearer);
    const theirs = await drain(other);
    // Theirs holds only the changes every organization shares (FX rates).
    expect(theirs.changes.length).toBeGreaterThan(0);
    for (const change of theirs.changes)
      expect(change).toMatchObject({ platformAccountId: null, accountId: null, kind: 'FX_OR_MARKUP_CHANGED' });
    expect(theirs.changes).toEqual(mine.filter((c) => c.kind === 'FX_OR_MARKUP_CHANGED' && c.accountId === null));
    // Their account edit shows in their feed only.
    const account = await jsonRequest(server, other, 'POST', `${P}/accounts`, {
      account: { name: 'Other', languageCode: 'de', countryCode: 'DE', currency: 'EUR' },
    });
    expect(account.status).toBe(201);
    expect((await drain(other, theirs.cursor)).changes.map(what)).toEqual([
      {
        kind: 'ENTITIES_CHANGED',
        platformAccountId: null,
        accountId: account.json.account.id,
        firstDay: null,
        lastDay: null,
      },
    ]);
    expect((await drain(bearer, myCursor)).changes).toEqual([]);
    // A cursor works only for the organization it was issued to.
    expect((await feed(other, `?since=${myCursor}`)).json.error).toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect((await feed(bearer, `?since=${theirs.cursor}`)).json.error).toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
  });

  it('410 cursor_expired for a cursor older than seven days; a recent one still works', async () => {
    const old = (await drain(bearer)).cursor;
    clockOffset = 7 * DAY - 60_000;
    try {
      const fresh = await token();
      expect((await feed(fresh, `?since=${old}`)).status).toBe(200);
      clockOffset = 7 * DAY + 60_000;
      const later = await token();
      const expired = await feed(later, `?since=${old}`);
      expect(expired.status).toBe(410);
      expect(expired.json.error).toMatchObject({ status: 410, code: 'cursor_expired', details: [{ field: 'since' }] });
      expect((await feed(later, '')).status).toBe(200);
    } finally {
      clockOffset = 0;
    }
  });

  it('410 when changes a cursor had not listed yet were purged; a cursor past them is fine', async () => {
    const before = (await drain(bearer)).cursor;
    const markup = await jsonRequest(server, bearer, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate: 0.1, startDate: '2025-01-01', endDate: '2025-01-31' },
    });
    expect(markup.status).toBe(201);
    const after = (await drain(bearer, before)).cursor;
    // What the hourly purge does to rows older than seven days, here to every row.
    await service.db.write('no-report-data', (tx) => purgeChangesBefore(tx, new Date(Date.now() + 60_000)));
    expect((await feed(bearer, `?since=${before}`)).json.error).toMatchObject({ status: 410, code: 'cursor_expired' });
    expect(await feed(bearer, `?since=${after}`)).toMatchObject({ status: 200, json: { changes: [], hasMore: false } });
    // Without since: from the oldest kept, none now; that cursor is past the purged rows.
    const restart = await feed(bearer, '');
    expect(restart.json.changes).toEqual([]);
    expect((await feed(bearer, `?since=${restart.json.nextCursor}`)).status).toBe(200);
    // A cursor ahead of every change ever issued (a database restored from an older backup) cannot be trusted either.
    const ahead = serverCursors().seal({ organizationId: 1, lastId: 999_999, issuedAtMs: Date.now() });
    expect((await feed(bearer, `?since=${ahead}`)).json.error).toMatchObject({ status: 410, code: 'cursor_expired' });
  });

  it('a cursor survives a restart of the service, and lists what came after it', async () => {
    const cursor = (await drain(bearer)).cursor;
    const markup = await jsonRequest(server, bearer, 'POST', `${P}/accounts/id/${accountId}/markups`, {
      markup: { rate: 0.1, startDate: '2025-03-01', endDate: '2025-03-02' },
    });
    expect(markup.status).toBe(201);
    await stop();
    await start();
    bearer = await token();
    const { changes, cursor: next } = await drain(bearer, cursor);
    expect(changes.map(what)).toEqual([
      {
        kind: 'FX_OR_MARKUP_CHANGED',
        platformAccountId: null,
        accountId,
        firstDay: '2025-03-01',
        lastDay: '2025-03-02',
      },
    ]);
    expect((await drain(bearer, next)).changes).toEqual([]);
  });
});
