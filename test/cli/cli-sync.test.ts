import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { createAccount, jsonRequest } from '../helpers/accounts.js';
import { runCli } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { waitForJob } from '../helpers/jobs.js';
import { tempDir, type TestServer } from '../helpers/server.js';

describe('adreport sync --org ID', () => {
  it('imports campaigns new at the platform for accounts with autoImport, with the server stopped', async () => {
    const dir = tempDir('adreport-sync-');
    const dbPath = path.join(dir, 'adreport.duckdb');
    try {
      const service = await startService(
        serviceConfigSchema.parse({ dbPath, host: '127.0.0.1', port: 0, demo: true, statistics: { backfillDays: 10 } }),
        { logError: () => undefined },
      );
      const demo = service.demo!.created ? service.demo : undefined;
      const http = new HttpClient(service.url, service.tls!.cert);
      const token = (
        await http.request('POST', '/token', {
          headers: { authorization: basic(demo!.client.clientId, demo!.client.clientSecret), 'content-type': FORM },
          body: 'grant_type=client_credentials',
        })
      ).json.access_token;
      const server = { http, service } as unknown as TestServer;
      const auth = { authorization: `Bearer ${token}` };
      const google = (await http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
        .adPlatformMasterAccounts[0];
      const under = (
        await http.get(`/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, auth)
      ).json.adPlatformAccounts;
      const account = await createAccount(server, token);
      await jsonRequest(server, token, 'POST', `/provisioning/v0/accounts/id/${account.id}/adplatform-accounts`, {
        adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: under[0].adPlatformId },
      });
      await jsonRequest(server, token, 'PATCH', `/provisioning/v0/accounts/id/${account.id}`, {
        account: { autoImport: true },
      });
      const autoJob = (await http.get('/provisioning/v0/jobs?type=AUTO_IMPORT', auth)).json.jobs[0];
      await waitForJob(server, token, autoJob.id);
      for (const job of (await http.get('/provisioning/v0/jobs?type=SYNC_STATISTICS', auth)).json.jobs)
        await waitForJob(server, token, job.id, undefined, 60_000);
      const imported = Number((await http.get('/provisioning/v0/campaigns', auth)).headers['x-totalcount']);
      expect(imported).toBeGreaterThan(1);
      // Two campaigns "appear" at the platform: the store forgets them, the platform still lists them.
      await service.db.write('all-organizations', (tx) =>
        tx.run('DELETE FROM campaigns WHERE id IN (SELECT id FROM campaigns ORDER BY id DESC LIMIT 2)'),
      );
      http.close();
      await service.close();

      const env = { ADREPORT_STATISTICS_BACKFILL_DAYS: '10' };
      const result = await runCli(['sync', '--org', '1', '--days', '5', '--db', dbPath, '--json'], env);
      expect(result.code).toBe(0);
      const { jobs } = JSON.parse(result.stdout) as { jobs: Array<Record<string, any>> };
      const autoImports = jobs.filter((job) => job.type === 'AUTO_IMPORT');
      expect(autoImports).toHaveLength(1);
      expect(autoImports[0]).toMatchObject({ status: 'SUCCEEDED', input: { accountId: account.id } });
      expect(autoImports[0]!.result.imported).toHaveLength(2);
      // The imports get their history: they join the backfill job while it is still queued, so
      // one or two jobs (the runner may start the first before the second import), covering both.
      const syncs = jobs.filter((job) => job.type === 'SYNC_STATISTICS');
      const backfills = syncs.filter((job) => job.input.campaignIds);
      expect(backfills.length).toBeGreaterThanOrEqual(1);
      for (const backfill of backfills) {
        expect(backfill).toMatchObject({
          status: 'SUCCEEDED',
          result: { status: 'SYNCED', campaigns: backfill.input.campaignIds.length },
        });
      }
      expect(backfills.flatMap((job) => job.input.campaignIds as number[]).sort()).toEqual(
        autoImports[0]!.result.imported.map((c: { campaignId: number }) => c.campaignId).sort(),
      );
      const trailing = syncs.filter((job) => !job.input.campaignIds);
      expect(trailing).toHaveLength(1);
      expect(trailing[0]).toMatchObject({ status: 'SUCCEEDED', result: { status: 'SYNCED', campaigns: imported } });

      const again = await runCli(['sync', '--org', '1', '--days', '5', '--db', dbPath, '--json'], env);
      const second = JSON.parse(again.stdout).jobs as Array<Record<string, any>>;
      expect(second.find((job) => job.type === 'AUTO_IMPORT')!.result.imported).toEqual([]);
      expect(second.filter((job) => job.type === 'SYNC_STATISTICS')).toHaveLength(1);
      expect((await runCli(['sync', '--org', '1', '--days', '0', '--db', dbPath])).stderr).toMatch(
        /--days must be a whole number of days from 1 to 1827/,
      );
      expect((await runCli(['sync', '--org', '7', '--db', dbPath])).stderr).toMatch(/organization 7 does not exist/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
