import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('adreport-cli-ma-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const db = path.join(dir, 'adreport.duckdb');

describe('adreport master-accounts link', () => {
  it('links a GOOGLE_ADS manager and a MICROSOFT_ADVERTISING reseller with the documented JSON', async () => {
    await runCli(['orgs', 'create', '--name', 'Agency', '--db', db]);
    const google = await runCli([
      'master-accounts',
      'link',
      '--org',
      '1',
      '--platform',
      'GOOGLE_ADS',
      '--platform-id',
      '123-456-7890',
      '--db',
      db,
      '--json',
    ]);
    expect(google.code).toBe(0);
    expect(JSON.parse(google.stdout)).toEqual({
      adPlatformMasterAccount: {
        id: 1,
        name: expect.any(String),
        adPlatformType: 'GOOGLE_ADS',
        adPlatformId: '123-456-7890',
        kind: 'MANAGER',
      },
    });
    const microsoft = await runCli([
      'master-accounts',
      'link',
      '--org',
      '1',
      '--platform',
      'BING_ADS',
      '--platform-id',
      '7654321',
      '--name',
      'Reseller EU',
      '--db',
      db,
      '--json',
    ]);
    expect(JSON.parse(microsoft.stdout).adPlatformMasterAccount).toMatchObject({
      name: 'Reseller EU',
      adPlatformType: 'MICROSOFT_ADVERTISING',
      kind: 'RESELLER',
    });
  });

  it.each([
    [['--platform', 'FACEBOOK', '--platform-id', 'act_123'], /FACEBOOK has no master accounts/],
    [['--platform', 'TIKTOK', '--platform-id', '1'], /--platform must be one of/],
    [['--platform', 'GOOGLE_ADS', '--platform-id', '1234567890'], /GOOGLE_ADS refused master account 1234567890/],
    [
      ['--platform', 'GOOGLE_ADS', '--platform-id', '123-456-7890'],
      /already linked to organization 1 as master account 1/,
    ],
    [['--platform', 'GOOGLE_ADS'], /--platform-id is required/],
  ])('fails %j with one clear line', async (args, pattern) => {
    const result = await runCli(['master-accounts', 'link', '--org', '1', ...args, '--db', db]);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(pattern);
  });

  it('refuses an organization that does not exist', async () => {
    const result = await runCli([
      'master-accounts',
      'link',
      '--org',
      '9',
      '--platform',
      'GOOGLE_ADS',
      '--platform-id',
      '111-222-3333',
      '--db',
      db,
    ]);
    expect(result.stderr).toMatch(/organization 9 does not exist/);
  });
});
