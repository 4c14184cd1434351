import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/*
 * Issue 34: a kill -9 must never take back a write that a client has seen. DuckDB (auto-checkpoint
 * at 1 MiB, skip-WAL threshold 100 KB) published a large commit to other connections, then
 * checkpointed, then returned, without writing it to the WAL. An account PATCH of a whole row and
 * its labels was such a commit, and so was a statistics sync's last chunk, which carries its
 * statistics.synced event. A kill -9 in between lost a value readers
 * had read, made a change-feed consumer keeping its cursor skip the change that was given the lost
 * one's id, and gave webhook event and delivery ids a receiver had seen to other events.
 *
 * Through HTTP on the built bin and a real DuckDB file: kill -9 when the receiver gets a sync's
 * event during the demo backfill (a few times), then 20 tries of "PATCH the account, poll it and
 * the feed, kill -9 the moment a client sees the new values (or once the PATCH answered), restart
 * on the same file, read it back".
 */
const P = '/provisioning/v0';
const FEED = '/reporting/v0/changes';
const TRIES = 20;
/** Kills when the receiver gets a sync's event during the demo backfill. */
const SYNC_KILLS = 3;

const dir = tempDir('adreport-durability-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const db = path.join(dir, 'data', 'adreport.duckdb');

interface Server {
  serve: ServeProcess;
  http: HttpClient;
  auth: Record<string, string>;
}

interface Client {
  clientId: string;
  clientSecret: string;
}

/** `adreport serve` on the test's file, with a fresh token of the demo client (printed by the first start). */
async function start(
  args: string[],
  env: Record<string, string>,
  client?: Client,
): Promise<Server & { client: Client }> {
  const serve = await startServe([...args, '--db', db], env);
  const credentials = client ?? serve.listening.demo!;
  const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
  const res = await http.request('POST', '/token', {
    headers: { authorization: basic(credentials.clientId, credentials.clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return { serve, http, auth: { authorization: `Bearer ${res.json.access_token as string}` }, client: credentials };
}

async function kill(server: Server): Promise<void> {
  server.serve.child.kill('SIGKILL');
  await server.serve.exited;
  server.http.close();
}

const send = (server: Server, method: string, target: string, body: unknown) =>
  server.http.request(method, target, {
    headers: { ...server.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const totalCount = async (server: Server, target: string) =>
  Number((await server.http.get(target, server.auth)).headers['x-totalcount']);

async function jobsIdle(server: Server): Promise<boolean> {
  const pending = async (status: string) => totalCount(server, `${P}/jobs?status=${status}&limit=1`);
  return (
    (await totalCount(server, `${P}/jobs?limit=1`)) > 0 && (await pending('QUEUED')) + (await pending('RUNNING')) === 0
  );
}

/** Polls `condition` under a generous ceiling. */
async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A whole row of new values unique to `tag`: every column of the account and its labels. With the
 * labels (deleted and inserted again) every such PATCH ran DuckDB's checkpoint in its commit on
 * today's store; one of an account without labels was written to the WAL (both measured).
 */
function valuesFor(tag: string, n: number): Record<string, unknown> {
  const values: Record<string, unknown> = { name: `Durable ${tag}`, notes: `notes of ${tag}`, labels: { write: tag } };
  for (let k = 1; k <= 20; k++) values[`field${k}`] = `${tag} field${k}`;
  for (let k = 21; k <= 30; k++) values[`field${k}`] = n * 1000 + k + 0.25;
  // Queues an AUTO_IMPORT with the write, whose job.succeeded is the webhook event of the write.
  values.autoImport = true;
  return values;
}

/** The fields of `values` that `account` does not show as written. */
const differences = (account: Record<string, unknown> | undefined, values: Record<string, unknown>) =>
  Object.keys(values).filter((key) => JSON.stringify(account?.[key]) !== JSON.stringify(values[key]));

interface Change {
  kind: string;
  accountId: number | null;
  platformAccountId: number | null;
  firstDay: string | null;
  lastDay: string | null;
  changedAt: string;
}

const changeKey = (c: Change) =>
  JSON.stringify([c.kind, c.accountId, c.platformAccountId, c.firstDay, c.lastDay, c.changedAt]);

/** A connector as README's loop: it keeps `nextCursor` across restarts; a page counts once its whole answer arrived. */
class FeedConsumer {
  private cursor: string | undefined;
  readonly seen = new Set<string>();
  /** 410 answers, each followed by the full resync README asks for. */
  readonly refusals: string[] = [];
  /** Where the test is when a refusal comes (the cursor was kept across the restart before). */
  at = '';

  async page(server: Server): Promise<{ changes: Change[]; hasMore: boolean }> {
    const query = new URLSearchParams({ limit: '1000', ...(this.cursor ? { since: this.cursor } : {}) });
    const res = await server.http.get(`${FEED}?${query}`, server.auth);
    if (res.status === 410) {
      this.refusals.push(`${this.at}: ${res.json.error.message as string}`);
      this.cursor = undefined;
      this.seen.clear();
      return { changes: [], hasMore: true };
    }
    if (res.status !== 200) throw new Error(`changes: ${res.status} ${res.text}`);
    for (const change of res.json.changes as Change[]) this.seen.add(changeKey(change));
    this.cursor = res.json.nextCursor as string;
    return res.json;
  }

  async drain(server: Server): Promise<void> {
    while ((await this.page(server)).hasMore);
  }
}

/**
 * The demo backfill's statistics.synced events are written by its syncs' last, large commits: the
 * receiver kills the server the moment a new one arrives, up to `times` times, and the server is
 * restarted until the backfill has ended. Returns the server running then and the kills.
 */
async function crashOnSyncDeliveries(
  first: Server,
  receiver: Receiver,
  restart: () => Promise<Server>,
  times: number,
): Promise<{ server: Server; kills: number }> {
  let server = first;
  let kills = 0;
  let killed = false;
  const events = new Set<string>();
  receiver.answer = ({ body }) => {
    const event = JSON.parse(body) as { id: string; type: string };
    if (event.type === 'statistics.synced' && !events.has(event.id) && kills < times && !killed) {
      events.add(event.id);
      killed = true;
      kills++;
      server.serve.child.kill('SIGKILL');
    }
    return 200;
  };
  const deadline = Date.now() + 300_000;
  try {
    for (;;) {
      const idle = await jobsIdle(server).catch((error: unknown) => {
        if (!killed) throw error;
        return false;
      });
      if (killed) {
        await server.serve.exited;
        server.http.close();
        server = await restart();
        killed = false;
      } else if (idle) {
        // No await between the check and the reset below: the receiver cannot kill in between.
        return { server, kills };
      } else {
        if (Date.now() > deadline) throw new Error('the demo backfill did not end within 300000 ms');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    receiver.answer = () => 200;
  }
}

/**
 * Starts the PATCH without awaiting it; meanwhile a reader polls the account and the consumer the
 * feed. The first of them to see the write before the PATCH answered kills the server at once;
 * otherwise it dies right after the answer and one more feed read. Says who saw the write in
 * flight (if anyone), and the fields a reader saw torn.
 */
async function crashDuringPatch(
  server: Server,
  consumer: FeedConsumer,
  accountId: number,
  values: Record<string, unknown>,
): Promise<{ seenBy: 'reader' | 'feed' | undefined; torn: string[] }> {
  const target = `${P}/accounts/id/${accountId}`;
  let answered = false;
  let seenBy: 'reader' | 'feed' | undefined;
  let torn: string[] = [];
  const killNow = (by: 'reader' | 'feed') => {
    if (answered || seenBy) return;
    seenBy = by;
    server.serve.child.kill('SIGKILL');
  };
  const patch = send(server, 'PATCH', target, { account: values }).then(
    (res) => {
      if (res.status !== 200) throw new Error(`PATCH: ${res.status} ${res.text}`);
      answered = true;
    },
    (error: unknown) => {
      if (!seenBy) throw error;
    },
  );
  // A short gap between polls leaves the machine's cores to the server; what a poll meets after
  // the kill (a reset connection) ends it.
  const pollWhileInFlight = async (poll: () => Promise<void>) => {
    try {
      while (!answered && !seenBy) {
        await poll();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    } catch (error) {
      if (!seenBy) throw error;
    }
  };
  const reader = pollWhileInFlight(async () => {
    const res = await server.http.get(target, server.auth);
    if (res.status !== 200) throw new Error(`GET account: ${res.status} ${res.text}`);
    if (res.json.account.notes !== values.notes || answered || seenBy) return;
    torn = differences(res.json.account, values);
    killNow('reader');
  });
  const feed = pollWhileInFlight(async () => {
    const { changes } = await consumer.page(server);
    if (changes.some((c) => c.kind === 'ENTITIES_CHANGED' && c.accountId === accountId)) killNow('feed');
  });
  await Promise.all([patch, reader, feed]);
  // Acknowledged: the consumer reads right before the kill.
  if (!seenBy) await consumer.drain(server);
  await kill(server);
  return { seenBy, torn };
}

describe('kill -9 while an account PATCH commits (issue 34)', () => {
  it('keeps every value a client saw, never lets the change feed skip a change, never reuses webhook ids', async () => {
    const started = Date.now();
    const receiver = await startReceiver(path.join(dir, 'receiver'));
    const env = {
      // The demo accounts with their history: a database of realistic size to checkpoint.
      ADREPORT_DEMO_DATA: 'true',
      ADREPORT_STATISTICS_BACKFILL_DAYS: '60',
      ADREPORT_RATE_LIMIT_PER_SECOND: '100000',
      ADREPORT_RATE_LIMIT_BURST: '100000',
      ADREPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
      ADREPORT_WEBHOOK_CA_FILE: receiver.caFile,
      ADREPORT_WEBHOOK_POLL_MS: '50',
      ADREPORT_WEBHOOK_RETRY_BASE_MS: '200',
      ADREPORT_WEBHOOK_RETRY_MAX_MS: '1000',
    };
    const first = await start(['--demo'], env);
    const client = first.client;
    let server: Server = first;
    try {
      // Created while the demo backfill starts: its syncs' events are delivered too.
      const hook = await send(server, 'POST', `${P}/webhooks`, {
        webhook: { url: `${receiver.url}/durability`, events: ['job.succeeded', 'job.failed', 'statistics.synced'] },
      });
      expect(hook.status, hook.text).toBe(201);
      const webhookId = hook.json.webhook.id as number;
      const backfill = await crashOnSyncDeliveries(server, receiver, () => start([], env, client), SYNC_KILLS);
      server = backfill.server;
      const created = await send(server, 'POST', `${P}/accounts`, {
        account: { name: 'Durable', languageCode: 'de', countryCode: 'DE', currency: 'EUR', labels: { write: 'new' } },
      });
      expect(created.status, created.text).toBe(201);
      const accountId = created.json.account.id as number;

      const consumer = new FeedConsumer();
      const failures: string[] = [];
      const seenInFlight = { reader: 0, feed: 0 };
      for (let n = 1; n <= TRIES; n++) {
        const values = valuesFor(`try ${n}`, n);
        // Everything before this try is consumed: a change of the account listed during it is this write.
        consumer.at = `try ${n}`;
        await consumer.drain(server);
        const { seenBy, torn } = await crashDuringPatch(server, consumer, accountId, values);
        if (seenBy) seenInFlight[seenBy]++;
        if (torn.length > 0) failures.push(`try ${n}: a reader saw the write torn (${torn.join(', ')})`);
        server = await start([], env, client);
        const res = await server.http.get(`${P}/accounts/id/${accountId}`, server.auth);
        const lost = differences(res.json.account, values);
        if (lost.length > 0)
          failures.push(
            `try ${n} (${seenBy ? `seen in flight by the ${seenBy}` : 'acknowledged'}): after the restart ` +
              `${lost.length} of ${Object.keys(values).length} fields are not as written, ` +
              `e.g. notes ${JSON.stringify(res.json.account?.notes)}`,
          );
      }

      // One more write after the last restart: it takes the id of a change lost in the last try.
      consumer.at = 'after the last restart';
      const last = await send(server, 'PATCH', `${P}/accounts/id/${accountId}`, { account: valuesFor('last', 0) });
      expect(last.status, last.text).toBe(200);
      await consumer.drain(server);
      const store = new FeedConsumer();
      await store.drain(server);

      // Its AUTO_IMPORT is the newest; wait for its job.succeeded and for every delivery to settle.
      const autoImports = await totalCount(server, `${P}/jobs?type=AUTO_IMPORT&limit=1`);
      const lastJob = (
        await server.http.get(`${P}/jobs?type=AUTO_IMPORT&limit=1&offset=${autoImports - 1}`, server.auth)
      ).json.jobs[0];
      expect(lastJob.input).toEqual({ accountId });
      const deliveredLastJob = () =>
        receiver.received.some((r) => {
          const event = JSON.parse(r.body);
          return event.data.job?.id === lastJob.id && event.data.job.createdAt === lastJob.createdAt;
        });
      await until(
        async () =>
          deliveredLastJob() &&
          (await jobsIdle(server)) &&
          (await totalCount(server, `${P}/webhooks/id/${webhookId}/deliveries?status=PENDING&limit=1`)) === 0,
        120_000,
        'the deliveries of the last write',
      );

      const hits = seenInFlight.reader + seenInFlight.feed;
      console.log(
        `issue 34: ${hits} of ${TRIES} tries killed the server while the PATCH was in flight and seen ` +
          `(${seenInFlight.reader} by a reader, ${seenInFlight.feed} by the feed consumer); ${backfill.kills} ` +
          `kills at a statistics.synced delivery; ${receiver.received.length} webhook deliveries; ` +
          `${Math.round((Date.now() - started) / 1000)} s`,
      );
      expect.soft(failures, 'tries whose write a client had seen or been told of, lost after kill -9').toEqual([]);
      expect.soft(consumer.refusals, 'the feed refused the cursor the consumer kept (410)').toEqual([]);
      expect
        .soft(
          [...consumer.seen].filter((key) => !store.seen.has(key)),
          'changes the consumer saw that the store lost',
        )
        .toEqual([]);
      expect
        .soft(
          [...store.seen].filter((key) => !consumer.seen.has(key)),
          'changes the consumer skipped',
        )
        .toEqual([]);
      /** Ids that arrived with more than one event body (redeliveries repeat the same bytes). */
      const reused = (header: string) => {
        const bodies = new Map<string, Set<string>>();
        for (const r of receiver.received) {
          const id = String(r.headers[header]);
          bodies.set(id, (bodies.get(id) ?? new Set()).add(r.body));
        }
        return [...bodies].filter(([, set]) => set.size > 1).map(([id, set]) => `${id}: ${[...set].join(' | ')}`);
      };
      expect.soft(reused('adreport-event-id'), 'event ids given to two different events').toEqual([]);
      expect.soft(reused('adreport-delivery-id'), 'delivery ids given to two different events').toEqual([]);
    } finally {
      server.serve.child.kill('SIGTERM');
      await server.serve.exited;
      server.http.close();
      await receiver.close();
    }
    // ~25 restarts of 1-3 s each and a 60-day demo backfill: about a minute on an idle 2-core machine.
  }, 600_000);
});
