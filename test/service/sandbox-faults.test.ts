import { describe, expect, it } from 'vitest';
import { PlatformError, type PlatformConnector } from '../../src/platforms/connector.js';
import { parseSandboxFaults, SandboxPlatforms, type SandboxFaultConfig } from '../../src/platforms/sandbox/index.js';
import { caught } from '../helpers/platform-errors.js';
import { useTempDatabase } from '../helpers/temp-database.js';

const temp = useTempDatabase('adreport-sandbox-faults-');

const now = () => new Date('2026-05-10T12:00:00Z');
const MASTER = '123-456-7890';

function sandbox(faults?: SandboxFaultConfig): SandboxPlatforms {
  return new SandboxPlatforms(temp.db, faults ? { now, faults } : { now });
}

/** The outcome of a call: 'ok' or the error code. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return error.code;
  }
}

/** One account id, found with faults off. */
async function firstAccount(connector: PlatformConnector): Promise<string> {
  return (await connector.listAccountsUnderMaster(MASTER))[0]!.adPlatformId;
}

describe('fault injection', () => {
  it('failNext: the next N calls fail UNAVAILABLE (retryable), then calls succeed again', async () => {
    const platforms = sandbox();
    const connector = platforms.connector(1, 'GOOGLE_ADS');
    const account = await firstAccount(connector);
    platforms.setFaults(1, 'GOOGLE_ADS', { failNext: 2 });
    const first = await caught(connector.listCampaigns(account));
    expect(first.code).toBe('UNAVAILABLE');
    expect(first.retryable).toBe(true);
    expect(first.platform).toBe('GOOGLE_ADS');
    expect(await outcome(connector.getMasterAccount(MASTER))).toBe('UNAVAILABLE');
    expect(await outcome(connector.listCampaigns(account))).toBe('ok');
    expect(await outcome(connector.listCampaigns(account))).toBe('ok');
  });

  it('throttleNext: RATE_LIMITED with a retry delay, retryable', async () => {
    const platforms = sandbox();
    const connector = platforms.connector(1, 'MICROSOFT_ADVERTISING');
    platforms.setFaults(1, 'MICROSOFT_ADVERTISING', { throttleNext: 1 });
    const error = await caught(connector.listAccountsUnderMaster('1234567'));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(await outcome(connector.listAccountsUnderMaster('1234567'))).toBe('ok');
  });

  it('revoked: ACCESS_DENIED, not retryable, on every call; a list denies only the ids named', async () => {
    const platforms = sandbox();
    const google = platforms.connector(1, 'GOOGLE_ADS');
    const [one, two] = await google.listAccountsUnderMaster(MASTER);
    const campaign = (await google.listCampaigns(one!.adPlatformId))[0]!.adPlatformId;
    platforms.setFaults(1, 'GOOGLE_ADS', { revoked: true });
    const calls: Array<Promise<unknown>> = [
      google.getMasterAccount(MASTER),
      google.listAccountsUnderMaster(MASTER),
      google.listDirectAccounts(),
      google.createAccount(MASTER, { name: 'New', currency: 'EUR', timeZone: 'Europe/Berlin' }, 'tok'),
      google.listCampaigns(one!.adPlatformId),
      google.fetchCampaignTree(one!.adPlatformId, campaign),
      google.pushChange(one!.adPlatformId, {
        kind: 'SET_STATUS',
        entity: 'CAMPAIGN',
        adPlatformId: campaign,
        status: 'PAUSED',
      }),
      google.fetchDailyReport(one!.adPlatformId, '2026-05-01', '2026-05-02'),
    ];
    for (const call of calls) {
      const error = await caught(call);
      expect(error.code).toBe('ACCESS_DENIED');
      expect(error.retryable).toBe(false);
    }
    // Checking a format is no call to the platform.
    expect(google.isWellFormedAccountId(one!.adPlatformId)).toBe(true);

    platforms.setFaults(1, 'GOOGLE_ADS', { revoked: [one!.adPlatformId] });
    expect(await outcome(google.listCampaigns(one!.adPlatformId))).toBe('ACCESS_DENIED');
    expect(await outcome(google.listCampaigns(two!.adPlatformId))).toBe('ok');
    expect(await outcome(google.listAccountsUnderMaster(MASTER))).toBe('ok');
    platforms.setFaults(1, 'GOOGLE_ADS', { revoked: [MASTER] });
    expect(await outcome(google.listAccountsUnderMaster(MASTER))).toBe('ACCESS_DENIED');
    expect(await outcome(google.listCampaigns(one!.adPlatformId))).toBe('ok');
  });

  it('latencyMs delays every call, failing or not', async () => {
    const platforms = sandbox();
    const connector = platforms.connector(1, 'FACEBOOK');
    platforms.setFaults(1, 'FACEBOOK', { latencyMs: 120, failNext: 1 });
    let started = performance.now();
    expect(await outcome(connector.listDirectAccounts())).toBe('UNAVAILABLE');
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    started = performance.now();
    expect(await outcome(connector.listDirectAccounts())).toBe('ok');
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('failureRate fails a reproducible share of calls', async () => {
    const pattern = async (platforms: SandboxPlatforms) => {
      const connector = platforms.connector(2, 'GOOGLE_ADS');
      const out: string[] = [];
      for (let i = 0; i < 60; i++) out.push(await outcome(connector.getMasterAccount(MASTER)));
      return out;
    };
    const first = await pattern(sandbox({ GOOGLE_ADS: { failureRate: 0.3 } }));
    const second = await pattern(sandbox({ GOOGLE_ADS: { failureRate: 0.3 } }));
    expect(second).toEqual(first);
    const failures = first.filter((o) => o === 'UNAVAILABLE').length;
    expect(failures).toBeGreaterThan(5);
    expect(failures).toBeLessThan(40);
    expect(new Set(first)).toEqual(new Set(['ok', 'UNAVAILABLE']));
    // setFaults restarts the sequence.
    const platforms = sandbox();
    platforms.setFaults('*', 'GOOGLE_ADS', { failureRate: 0.3 });
    const third = await pattern(platforms);
    platforms.setFaults('*', 'GOOGLE_ADS', { failureRate: 0.3 });
    expect(await pattern(platforms)).toEqual(third);
    expect(await pattern(sandbox({ GOOGLE_ADS: { failureRate: 0 } }))).toEqual(Array(60).fill('ok'));
    expect(await pattern(sandbox({ GOOGLE_ADS: { failureRate: 1 } }))).toEqual(Array(60).fill('UNAVAILABLE'));
  });

  it('scopes faults: one organization, every organization, other platforms untouched; clearFaults ends all', async () => {
    const platforms = sandbox({ MICROSOFT_ADVERTISING: { revoked: true } });
    // The start configuration applies to every organization.
    expect(await outcome(platforms.connector(1, 'MICROSOFT_ADVERTISING').getMasterAccount('1234567'))).toBe(
      'ACCESS_DENIED',
    );
    expect(await outcome(platforms.connector(99, 'MICROSOFT_ADVERTISING').getMasterAccount('1234567'))).toBe(
      'ACCESS_DENIED',
    );
    expect(await outcome(platforms.connector(1, 'GOOGLE_ADS').getMasterAccount(MASTER))).toBe('ok');

    platforms.setFaults(1, 'GOOGLE_ADS', { failNext: 5 });
    expect(await outcome(platforms.connector(2, 'GOOGLE_ADS').getMasterAccount(MASTER))).toBe('ok');
    expect(await outcome(platforms.connector(1, 'GOOGLE_ADS').getMasterAccount(MASTER))).toBe('UNAVAILABLE');

    // A platform-wide outage: its counter is shared by every organization.
    platforms.setFaults('*', 'FACEBOOK', { throttleNext: 2 });
    expect(await outcome(platforms.connector(1, 'FACEBOOK').listDirectAccounts())).toBe('RATE_LIMITED');
    expect(await outcome(platforms.connector(2, 'FACEBOOK').listDirectAccounts())).toBe('RATE_LIMITED');
    expect(await outcome(platforms.connector(3, 'FACEBOOK').listDirectAccounts())).toBe('ok');

    // setFaults replaces a scope's faults.
    platforms.setFaults(1, 'GOOGLE_ADS', {});
    expect(await outcome(platforms.connector(1, 'GOOGLE_ADS').getMasterAccount(MASTER))).toBe('ok');

    platforms.setFaults(1, 'FACEBOOK', { failNext: 3 });
    platforms.clearFaults();
    expect(await outcome(platforms.connector(1, 'FACEBOOK').listDirectAccounts())).toBe('ok');
    expect(await outcome(platforms.connector(1, 'MICROSOFT_ADVERTISING').getMasterAccount('1234567'))).toBe('ok');
  });

  it('decides the outcome in call order, so concurrent calls consume counters exactly', async () => {
    const platforms = sandbox();
    const connector = platforms.connector(4, 'GOOGLE_ADS');
    platforms.setFaults(4, 'GOOGLE_ADS', { failNext: 3, latencyMs: 20 });
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => outcome(connector.getMasterAccount(MASTER))));
    expect(outcomes).toEqual(['UNAVAILABLE', 'UNAVAILABLE', 'UNAVAILABLE', 'ok', 'ok']);
  });
});

describe('parseSandboxFaults', () => {
  it('reads faults per platform, aliases included', () => {
    expect(
      parseSandboxFaults(
        '{"GOOGLE_ADS":{"latencyMs":200,"failureRate":0.1},"BING_ADS":{"revoked":["1234567"]},"FACEBOOK":{"failNext":2,"throttleNext":1,"revoked":false}}',
      ),
    ).toEqual({
      GOOGLE_ADS: { latencyMs: 200, failureRate: 0.1 },
      MICROSOFT_ADVERTISING: { revoked: ['1234567'] },
      FACEBOOK: { failNext: 2, throttleNext: 1, revoked: false },
    });
    expect(parseSandboxFaults('{}')).toEqual({});
    expect(parseSandboxFaults('{"GOOGLE_ADS":{"crashAfterCreate":true}}')).toEqual({
      GOOGLE_ADS: { crashAfterCreate: true },
    });
  });

  it('refuses bad input with a message naming it', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"GOOGLE_ADS":', /not valid JSON/],
      ['[]', /JSON object keyed by ad platform/],
      ['{"TIKTOK":{}}', /unknown ad platform "TIKTOK"/],
      ['{"GOOGLE_ADS":{"latency":5}}', /GOOGLE_ADS: unknown field "latency"/],
      ['{"GOOGLE_ADS":{"failureRate":1.5}}', /GOOGLE_ADS\.failureRate must be a number from 0 to 1/],
      ['{"GOOGLE_ADS":{"failNext":1.5}}', /GOOGLE_ADS\.failNext must be an integer/],
      ['{"GOOGLE_ADS":{"latencyMs":-1}}', /latencyMs must be a number/],
      ['{"FACEBOOK":{"revoked":"yes"}}', /FACEBOOK\.revoked must be true, false or a list/],
      ['{"FACEBOOK":3}', /FACEBOOK must be an object/],
      ['{"GOOGLE_ADS":{"crashAfterCreate":"yes"}}', /GOOGLE_ADS\.crashAfterCreate must be true or false/],
      ['{"ADWORDS":{},"GOOGLE_ADS":{}}', /GOOGLE_ADS is given twice/],
    ];
    for (const [json, message] of cases) expect(() => parseSandboxFaults(json)).toThrow(message);
  });
});
