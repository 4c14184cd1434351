import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';
import { startReceiver, verifySignature } from '../helpers/webhook-receiver.js';

const dir = tempDir('adreport-webhook-crash-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const P = '/provisioning/v0';
const JOBS = 3;

describe('kill -9 while deliveries are in flight', () => {
  it('delivers every event after the restart: none is lost', async () => {
    const receiver = await startReceiver(path.join(dir, 'receiver'));
    // The receiver hangs: every delivery of the first process is in flight when it dies.
    receiver.answer = () => 'hold';
    const db = path.join(dir, 'data', 'adreport.duckdb');
    const env = {
      ADREPORT_WEBHOOK_ALLOW_PRIVATE: 'true',
      ADREPORT_WEBHOOK_CA_FILE: receiver.caFile,
      ADREPORT_WEBHOOK_POLL_MS: '50',
      ADREPORT_WEBHOOK_ATTEMPT_TIMEOUT_MS: '60000',
    };
    const first = await startServe(['--demo', '--db', db], env);
    const demo = first.listening.demo!;
    const ca = fs.readFileSync(`${db}.tls/cert.pem`, 'utf8');
    let http = new HttpClient(first.listening.url, ca);
    const token = (
      await http.request('POST', '/token', {
        headers: { authorization: basic(demo.clientId, demo.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      })
    ).json.access_token as string;
    const auth = { authorization: `Bearer ${token}` };
    const send = (method: string, target: string, body: unknown) =>
      http.request(method, target, {
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await send('POST', `${P}/webhooks`, {
      webhook: { url: `${receiver.url}/crash`, events: ['job.succeeded', 'job.failed'] },
    });
    expect(created.status).toBe(201);
    const { id: webhookId, secret } = created.json.webhook as { id: number; secret: string };

    const master = (await http.get(`${P}/adplatform-master-accounts`, auth)).json.adPlatformMasterAccounts[0];
    const jobIds: number[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await send('POST', `${P}/adplatform-master-accounts/id/${master.id}/adplatform-accounts`, {
        adPlatformAccount: { name: `Crash hook ${i}`, currency: 'EUR', timeZone: 'Europe/Berlin' },
      });
      expect(res.status).toBe(202);
      jobIds.push(res.json.job.id as number);
    }
    // Every job has ended and each delivery is in flight (held by the receiver).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const log = (await http.get(`${P}/webhooks/id/${webhookId}/deliveries`, auth)).json.deliveries as unknown[];
      const jobs = (await http.get(`${P}/jobs`, auth)).json.jobs as Array<{ id: number; status: string }>;
      const ended = jobs.filter((j) => jobIds.includes(j.id) && !['QUEUED', 'RUNNING'].includes(j.status));
      if (ended.length === JOBS && log.length >= JOBS) break;
      if (Date.now() > deadline) throw new Error('jobs or deliveries did not appear');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(receiver.received).toEqual([]);
    http.close();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');

    receiver.answer = () => 200;
    const second = await startServe(['--db', db], env);
    try {
      http = new HttpClient(second.listening.url, ca);
      const until = Date.now() + 20_000;
      const deliveredJobs = () =>
        new Set(receiver.received.map((r) => (JSON.parse(r.body) as { data: { job: { id: number } } }).data.job.id));
      while (jobIds.some((id) => !deliveredJobs().has(id)) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect([...deliveredJobs()].sort()).toEqual([...jobIds].sort());
      const now = Math.floor(Date.now() / 1000);
      for (const r of receiver.received)
        expect(verifySignature(secret, r.headers['adreport-signature'] as string, r.body, now)).toBe(true);
      // The log shows each delivered, with the attempt the crash cut short counted only if it was recorded.
      let log: Array<{ status: string }> = [];
      for (let i = 0; i < 100; i++) {
        log = (await http.get(`${P}/webhooks/id/${webhookId}/deliveries`, auth)).json.deliveries;
        if (log.every((d) => d.status === 'DELIVERED')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(log.map((d) => d.status)).toEqual(Array(JOBS).fill('DELIVERED'));
      http.close();
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      await receiver.close();
    }
  }, 300_000);
});
