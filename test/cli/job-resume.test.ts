import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/store/database.js';
import { startServe } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('adreport-resume-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function getJson(http: HttpClient, pathName: string, token: string) {
  return (await http.get(pathName, { authorization: `Bearer ${token}` })).json;
}

describe('a job RUNNING when the process dies', () => {
  it('is resumed at the next start and completes once, without a second account at the platform', async () => {
    const db = path.join(dir, 'adreport.duckdb');
    // The platform answers slowly, so the job is surely RUNNING when the process is killed.
    const first = await startServe(['--demo', '--db', db], {
      ADREPORT_SANDBOX_FAULTS: JSON.stringify({ GOOGLE_ADS: { latencyMs: 3000 } }),
    });
    const demo = first.listening.demo!;
    const ca = fs.readFileSync(`${db}.tls/cert.pem`, 'utf8');
    let http = new HttpClient(first.listening.url, ca);
    const tokenRes = await http.request('POST', '/token', {
      headers: { authorization: basic(demo.clientId, demo.clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
    const token = tokenRes.json.access_token as string;
    const masters = (await getJson(http, '/provisioning/v0/adplatform-master-accounts', token))
      .adPlatformMasterAccounts;
    const google = masters.find((m: { adPlatformType: string }) => m.adPlatformType === 'GOOGLE_ADS');
    const created = await http.request(
      'POST',
      `/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`,
      {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          adPlatformAccount: { name: 'Survivor GmbH', currency: 'EUR', timeZone: 'Europe/Berlin' },
        }),
      },
    );
    const jobId = created.json.job.id as number;
    const deadline = Date.now() + 5000;
    while ((await getJson(http, `/provisioning/v0/jobs/id/${jobId}`, token)).job.status !== 'RUNNING') {
      if (Date.now() > deadline) throw new Error('job never started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    http.close();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServe(['--db', db]);
    try {
      http = new HttpClient(second.listening.url, ca);
      let job = (await getJson(http, `/provisioning/v0/jobs/id/${jobId}`, token)).job;
      const until = Date.now() + 10_000;
      while (job.status !== 'SUCCEEDED' && job.status !== 'FAILED' && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        job = (await getJson(http, `/provisioning/v0/jobs/id/${jobId}`, token)).job;
      }
      expect(job.status).toBe('SUCCEEDED');
      expect(job.attempts).toBe(2);
      const under = (
        await getJson(http, `/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, token)
      ).adPlatformAccounts;
      expect(under.filter((a: { name: string }) => a.name === 'Survivor GmbH')).toHaveLength(1);
      http.close();
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  });

  it('killed inside the job, after the platform stored the account and before the job recorded it, resumes without a second account (item 24)', async () => {
    const crashDir = tempDir('adreport-crash-job-');
    const db = path.join(crashDir, 'adreport.duckdb');
    try {
      const first = await startServe(['--demo', '--db', db], {
        ADREPORT_SANDBOX_FAULTS: JSON.stringify({ GOOGLE_ADS: { crashAfterCreate: true } }),
      });
      const demo = first.listening.demo!;
      const ca = fs.readFileSync(`${db}.tls/cert.pem`, 'utf8');
      let http = new HttpClient(first.listening.url, ca);
      const token = (
        await http.request('POST', '/token', {
          headers: { authorization: basic(demo.clientId, demo.clientSecret), 'content-type': FORM },
          body: 'grant_type=client_credentials',
        })
      ).json.access_token as string;
      const masters = (await getJson(http, '/provisioning/v0/adplatform-master-accounts', token))
        .adPlatformMasterAccounts;
      const google = masters.find((m: { adPlatformType: string }) => m.adPlatformType === 'GOOGLE_ADS');
      // The job may run, and kill the process, before the 202 is out: then the POST fails and the job is found by listing.
      const created = await http
        .request('POST', `/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, {
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            adPlatformAccount: { name: 'Crash Once GmbH', currency: 'EUR', timeZone: 'Europe/Berlin' },
          }),
        })
        .catch(() => undefined);
      if (created) expect(created.status).toBe(202);
      const code = await first.exited;
      expect(code).toBeNull();
      expect(first.child.signalCode).toBe('SIGKILL');
      http.close();

      // What the crash left: the platform has the account, the job is still RUNNING without a result.
      const crashed = await Database.open(db, { readConnections: 1, maxQueued: 8 });
      const leftover = await crashed.read((r) =>
        r.all<{ id: number; status: string; result: string | null; atPlatform: number }>(
          `SELECT id::INT AS id, status, result, (SELECT count(*)::INT FROM sandbox_created_accounts WHERE name = 'Crash Once GmbH') AS "atPlatform"
             FROM jobs WHERE type = 'CREATE_ADPLATFORM_ACCOUNT'`,
        ),
      );
      await crashed.close();
      expect(leftover).toHaveLength(1);
      expect(leftover[0]).toMatchObject({ status: 'RUNNING', result: null, atPlatform: 1 });
      const jobId = leftover[0]!.id;
      if (created) expect(created.json.job.id).toBe(jobId);

      const second = await startServe(['--db', db]);
      try {
        http = new HttpClient(second.listening.url, ca);
        let job = (await getJson(http, `/provisioning/v0/jobs/id/${jobId}`, token)).job;
        const until = Date.now() + 15_000;
        while (job.status !== 'SUCCEEDED' && job.status !== 'FAILED' && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          job = (await getJson(http, `/provisioning/v0/jobs/id/${jobId}`, token)).job;
        }
        expect(job.status).toBe('SUCCEEDED');
        expect(job.attempts).toBe(2);
        const under = (
          await getJson(http, `/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, token)
        ).adPlatformAccounts;
        const ours = under.filter((a: { name: string }) => a.name === 'Crash Once GmbH');
        expect(ours).toHaveLength(1);
        expect(job.result.adPlatformAccount.adPlatformId).toBe(ours[0].adPlatformId);
        http.close();
      } finally {
        second.child.kill('SIGTERM');
        expect(await second.exited).toBe(0);
      }

      // The platform's own record, read after the server let go of the file: one account for the request token.
      const after = await Database.open(db, { readConnections: 1, maxQueued: 8 });
      const atPlatform = await after.read((r) =>
        r.all<{ name: string }>('SELECT name FROM sandbox_created_accounts WHERE request_token = $1 OR name = $2', [
          `job-${jobId}`,
          'Crash Once GmbH',
        ]),
      );
      await after.close();
      expect(atPlatform).toEqual([{ name: 'Crash Once GmbH' }]);
    } finally {
      fs.rmSync(crashDir, { recursive: true, force: true });
    }
  });
});
