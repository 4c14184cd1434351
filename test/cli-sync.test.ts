import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../src/config/config.js';
import { startService } from '../src/main.js';
import { createAccount, jsonRequest } from './helpers/accounts.js';
import { runCli } from './helpers/cli.js';
import { basic, FORM, HttpClient } from './helpers/http.js';
import { waitForJob } from './helpers/jobs.js';
import { tempDir, type TestServer } from './helpers/server.js';

describe('adreport sync --org ID', () => {
  it('imports campaigns new at the platform for accounts with autoImport, with the server stopped', async () => {
    const dir = tempDir('adreport-sync-');
    const dbPath = path.join(dir, 'adreport.duckdb');
    try {
      const service = await startService(serviceConfigSchema.parse({ dbPath, host: '127.0.0.1', port: 0, demo: true }), { logError: () => undefined });
      const demo = service.demo!.created ? service.demo : undefined;
      const http = new HttpClient(service.url, service.tls!.cert);
      const token = (await http.request('POST', '/token', { headers: { authorization: basic(demo!.client.clientId, demo!.client.clientSecret), 'content-type': FORM }, body: 'grant_type=client_credentials' })).json.access_token;
      const server = { http, service } as unknown as TestServer;
      const auth = { authorization: `Bearer ${token}` };
      const google = (await http.get('/provisioning/v0/adplatform-master-accounts', auth)).json.adPlatformMasterAccounts[0];
      const under = (await http.get(`/provisioning/v0/adplatform-master-accounts/id/${google.id}/adplatform-accounts`, auth)).json.adPlatformAccounts;
      const account = await createAccount(server, token);
      await jsonRequest(server, token, 'POST', `/provisioning/v0/accounts/id/${account.id}/adplatform-accounts`, { adPlatformAccount: { adPlatformType: 'GOOGLE_ADS', adPlatformId: under[0].adPlatformId } });
      await jsonRequest(server, token, 'PATCH', `/provisioning/v0/accounts/id/${account.id}`, { account: { autoImport: true } });
      const autoJob = (await http.get('/provisioning/v0/jobs?type=AUTO_IMPORT', auth)).json.jobs[0];
      await waitForJob(server, token, autoJob.id);
      const imported = Number((await http.get('/provisioning/v0/campaigns', auth)).headers['x-totalcount']);
      expect(imported).toBeGreaterThan(1);
      // Two campaigns "appear" at the platform: the store forgets them, the platform still lists them.
      await service.db.write((tx) => tx.run('DELETE FROM campaigns WHERE id IN (SELECT id FROM campaigns ORDER BY id DESC LIMIT 2)'));
      http.close();
      await service.close();

      const result = await runCli(['sync', '--org', '1', '--db', dbPath, '--json']);
      expect(result.code).toBe(0);
      const { jobs } = JSON.parse(result.stdout);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ type: 'AUTO_IMPORT', status: 'SUCCEEDED', input: { accountId: account.id } });
      expect(jobs[0].result.imported).toHaveLength(2);

      const again = await runCli(['sync', '--org', '1', '--db', dbPath, '--json']);
      expect(JSON.parse(again.stdout).jobs[0].result.imported).toEqual([]);
      expect((await runCli(['sync', '--org', '7', '--db', dbPath])).stderr).toMatch(/organization 7 does not exist/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
