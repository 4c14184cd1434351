import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { MARKETS } from '../../src/platforms/sandbox/vocabulary.js';
import {
  FX_REFERENCE_FILE,
  fxCoverage,
  fxReferenceText,
  loadFxReference,
  supportedCurrencies,
} from '../../src/reference/fx-rates.js';
import { isCurrencyCode } from '../../src/shared/currencies.js';
import { accountCount, createAccount, jsonRequest } from '../helpers/accounts.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const FIRST_DAY = '2019-01-01';
const LAST_DAY = '2027-12-31';
const DAYS = (Date.UTC(2027, 11, 31) - Date.UTC(2019, 0, 1)) / 86_400_000 + 1;
/** The sandbox's markets, written out here independently of the sandbox's own list. */
const REQUIRED = ['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'DKK', 'NOK', 'PLN', 'JPY', 'AUD', 'CAD', 'BRL', 'MXN'];
/** Valid ISO 4217 codes the reference has no rates for (see data/fx/SOURCE.md). */
const WITHOUT_RATES = ['VED', 'NGN'];

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
});
afterAll(() => server.close());

const read = <T extends object>(sql: string, params: string[] = []) =>
  server.service.db.read((r) => r.all<T>(sql, params));

describe('the reference file, as loaded at start', () => {
  it(`has a rate for every currency on every day ${FIRST_DAY}..${LAST_DAY}, once`, async () => {
    const coverage = await server.service.db.read((r) => fxCoverage(r));
    const currencies = supportedCurrencies().size;
    expect(coverage).toEqual({ currencies, rows: currencies * DAYS, from: FIRST_DAY, to: LAST_DAY });
    const perCurrency = await read<{ currency: string; days: number; first: string; last: string }>(
      `SELECT currency, count(DISTINCT day)::INTEGER AS days, strftime(min(day), '%Y-%m-%d') AS first, strftime(max(day), '%Y-%m-%d') AS last
       FROM fx_rates GROUP BY currency ORDER BY currency`,
    );
    expect(perCurrency.map((row) => row.currency)).toEqual([...supportedCurrencies()].sort());
    for (const row of perCurrency)
      expect(row, row.currency).toEqual({ currency: row.currency, days: DAYS, first: FIRST_DAY, last: LAST_DAY });
  });

  it('covers the sandbox markets and at least the required currencies; every rate is positive and EUR is 1', async () => {
    for (const code of [...REQUIRED, ...MARKETS.map((m) => m.currency)])
      expect(supportedCurrencies().has(code), code).toBe(true);
    const [bad] = await read<{ nonPositive: number; eurNotOne: number }>(
      `SELECT count(*) FILTER (WHERE units_per_eur <= 0)::INTEGER AS "nonPositive", count(*) FILTER (WHERE currency = 'EUR' AND units_per_eur <> 1)::INTEGER AS "eurNotOne" FROM fx_rates`,
    );
    expect(bad).toEqual({ nonPositive: 0, eurNotOne: 0 });
  });

  it('holds published rates where the source has them (ECB convention: units per 1 EUR)', async () => {
    const rows = await read<{ currency: string; rate: number }>(
      `SELECT currency, units_per_eur::DOUBLE AS rate FROM fx_rates WHERE day = DATE '2024-06-14' AND currency IN ('USD', 'GBP', 'JPY')`,
    );
    const rate = Object.fromEntries(rows.map((row) => [row.currency, row.rate]));
    // ECB published 1.0686 USD, 0.84 GBP and 168 JPY for that day; the source's crosses are within 1 %.
    expect(rate.USD).toBeCloseTo(1.0686, 2);
    expect(Math.abs(rate.GBP! / 0.8428 - 1)).toBeLessThan(0.01);
    expect(Math.abs(rate.JPY! / 168.1 - 1)).toBeLessThan(0.01);
  });

  it('every currency in use (accounts, ad platform accounts) has a rate on every day of the range', async () => {
    for (const currency of ['CHF', 'SEK', 'JPY', 'BRL']) await createAccount(server, token, { currency });
    // A platform account of each sandbox master, linked as a client would.
    const auth = { authorization: `Bearer ${token}` };
    const account = await createAccount(server, token);
    const masters = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
      .adPlatformMasterAccounts as Array<{ id: number; adPlatformType: string }>;
    for (const master of masters) {
      const listed = (
        await server.http.get(`/provisioning/v0/adplatform-master-accounts/id/${master.id}/adplatform-accounts`, auth)
      ).json.adPlatformAccounts as Array<{ adPlatformId: string }>;
      for (const platformAccount of listed.slice(0, 5)) {
        const res = await jsonRequest(
          server,
          token,
          'POST',
          `/provisioning/v0/accounts/id/${account.id}/adplatform-accounts`,
          {
            adPlatformAccount: { adPlatformType: master.adPlatformType, adPlatformId: platformAccount.adPlatformId },
          },
        );
        expect(res.status).toBe(201);
      }
    }
    const inUse = await read<{ currency: string }>(
      'SELECT currency FROM accounts UNION SELECT currency FROM adplatform_accounts ORDER BY currency',
    );
    expect(inUse.length).toBeGreaterThan(4);
    const missing = await read<{ currency: string; day: string }>(
      `WITH used AS (SELECT currency FROM accounts UNION SELECT currency FROM adplatform_accounts),
            days AS (SELECT CAST(d AS DATE) AS day FROM range(DATE '${FIRST_DAY}', DATE '${LAST_DAY}' + INTERVAL 1 DAY, INTERVAL 1 DAY) t(d))
       SELECT u.currency, strftime(d.day, '%Y-%m-%d') AS day FROM used u CROSS JOIN days d
       WHERE NOT EXISTS (SELECT 1 FROM fx_rates f WHERE f.currency = u.currency AND f.day = d.day) LIMIT 5`,
    );
    expect(missing).toEqual([]);
  });

  it("marks a rate published up to its currency's published_through in data/fx/series.csv, estimated after (issue 19)", async () => {
    const through = new Map(
      fs
        .readFileSync('data/fx/series.csv', 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(','))
        .map((cells) => [cells[0]!, cells[2]!] as const),
    );
    expect(through.get('EUR')).toBe(LAST_DAY);
    const rows = await read<{
      currency: string;
      published: number;
      first_estimated: string | null;
      last_published: string | null;
    }>(
      `SELECT currency, count(*) FILTER (WHERE published)::INTEGER AS published,
              strftime(min(day) FILTER (WHERE NOT published), '%Y-%m-%d') AS first_estimated, strftime(max(day) FILTER (WHERE published), '%Y-%m-%d') AS last_published
         FROM fx_rates GROUP BY currency ORDER BY currency`,
    );
    expect(rows.map((r) => r.currency)).toEqual([...through.keys()].sort());
    for (const row of rows) {
      const last = through.get(row.currency)!;
      const days = (Date.parse(`${last}T00:00:00Z`) - Date.parse(`${FIRST_DAY}T00:00:00Z`)) / 86_400_000 + 1;
      expect(row, row.currency).toEqual({
        currency: row.currency,
        published: days,
        first_estimated:
          last === LAST_DAY ? null : new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10),
        last_published: last,
      });
    }
  });

  it('supportedCurrencies() is exactly the header of the reference file', () => {
    const header = fxReferenceText(fs.readFileSync(FX_REFERENCE_FILE)).split('\n', 1)[0]!.split(',');
    expect(header[0]).toBe('day');
    expect([...supportedCurrencies()].sort()).toEqual(header.slice(1).sort());
  });
});

describe('loading', () => {
  it('is a no-op when the file did not change: a second start keeps the loaded rows and their load time', async () => {
    const dir = tempDir('adreport-fx-');
    const config = serviceConfigSchema.parse({ dbPath: path.join(dir, 'adreport.duckdb'), host: '127.0.0.1', port: 0 });
    try {
      const first = await startService(config, { logError: () => undefined });
      const loadedAt = () =>
        first.db.read((r) =>
          r.one<{ at: string }>("SELECT loaded_at::VARCHAR AS at FROM reference_data WHERE name = 'fx-rates'"),
        );
      const firstLoad = await loadedAt();
      expect(firstLoad).toBeDefined();
      await first.close();

      const second = await startService(config, { logError: () => undefined });
      try {
        const again = await second.db.read((r) =>
          r.one<{ at: string }>("SELECT loaded_at::VARCHAR AS at FROM reference_data WHERE name = 'fx-rates'"),
        );
        expect(again).toEqual(firstLoad);
        const started = performance.now();
        const result = await loadFxReference(second.db);
        const elapsedMs = performance.now() - started;
        expect(result).toEqual({
          loaded: false,
          currencies: supportedCurrencies().size,
          from: FIRST_DAY,
          to: LAST_DAY,
        });
        // A hash of the file and one lookup; the full load takes a few hundred ms.
        expect(elapsedMs).toBeLessThan(500);
        expect((await second.db.read((r) => fxCoverage(r))).rows).toBe(supportedCurrencies().size * DAYS);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replaces the whole table when the file changed, and refuses a broken file without touching the table', async () => {
    const dir = tempDir('adreport-fx-file-');
    const db = server.service.db;
    try {
      const lines = fxReferenceText(fs.readFileSync(FX_REFERENCE_FILE)).trimEnd().split('\n');
      const shorter = path.join(dir, 'shorter.csv');
      fs.writeFileSync(shorter, `${lines.slice(0, 11).join('\n')}\n`);
      expect(await loadFxReference(db, shorter)).toEqual({
        loaded: true,
        currencies: supportedCurrencies().size,
        from: FIRST_DAY,
        to: '2019-01-10',
      });
      expect(await db.read((r) => fxCoverage(r))).toEqual({
        currencies: supportedCurrencies().size,
        rows: supportedCurrencies().size * 10,
        from: FIRST_DAY,
        to: '2019-01-10',
      });
      expect((await loadFxReference(db, shorter)).loaded).toBe(false);

      const gap = path.join(dir, 'gap.csv');
      fs.writeFileSync(gap, `${[lines[0], lines[1], lines[3]].join('\n')}\n`);
      await expect(loadFxReference(db, gap)).rejects.toThrow(/expected day 2019-01-02, found 2019-01-03/);
      const negative = path.join(dir, 'negative.csv');
      fs.writeFileSync(negative, `${[lines[0], lines[1]!.replace(/,1,/, ',-1,')].join('\n')}\n`);
      await expect(loadFxReference(db, negative)).rejects.toThrow(
        /the [A-Z]{3} rate of 2019-01-01 is -1\.00000000, not a positive decimal/,
      );
      const text = path.join(dir, 'text.csv');
      fs.writeFileSync(text, `${[lines[0], lines[1]!.replace(/,1,/, ',one,')].join('\n')}\n`);
      await expect(loadFxReference(db, text)).rejects.toThrow(/one/);
      expect((await db.read((r) => fxCoverage(r))).to).toBe('2019-01-10');
    } finally {
      // Back to the real file for the other tests of this file.
      expect((await loadFxReference(db)).loaded).toBe(true);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect((await db.read((r) => fxCoverage(r))).to).toBe(LAST_DAY);
  });
});

describe('a currency without exchange rates is refused (422 unsupported_currency)', () => {
  const base = { name: 'Acme GmbH', languageCode: 'de', countryCode: 'DE', currency: 'EUR' };
  const expectNoRates = (res: { status: number; json: any }, field: string, code: string) => {
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    const detail = (res.json.error.details as Array<{ field: string; code: string; message: string }>).find(
      (d) => d.field === field,
    );
    expect(detail?.code).toBe('unsupported_currency');
    expect(detail?.message).toContain(`no exchange rates for ${code}`);
  };

  it('the codes used here are valid ISO 4217 codes without rates', () => {
    for (const code of WITHOUT_RATES) {
      expect(isCurrencyCode(code), code).toBe(true);
      expect(supportedCurrencies().has(code), code).toBe(false);
    }
  });

  it.each(WITHOUT_RATES)('POST, PUT and PATCH of an account in %s; nothing changes', async (code) => {
    const before = await accountCount(server, token);
    expectNoRates(
      await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', { account: { ...base, currency: code } }),
      'account.currency',
      code,
    );
    expect(await accountCount(server, token)).toBe(before);

    const account = await createAccount(server, token, { currency: 'CHF' });
    const accountPath = `/provisioning/v0/accounts/id/${account.id}`;
    expectNoRates(
      await jsonRequest(server, token, 'PUT', accountPath, { account: { ...base, currency: code } }),
      'account.currency',
      code,
    );
    expectNoRates(
      await jsonRequest(
        server,
        token,
        'PATCH',
        accountPath,
        { account: { currency: code } },
        'application/merge-patch+json',
      ),
      'account.currency',
      code,
    );
    expect((await server.http.get(accountPath, { authorization: `Bearer ${token}` })).json.account.currency).toBe(
      'CHF',
    );
  });

  it('an unknown code stays unknown_currency, a supported one is accepted', async () => {
    const unknown = await jsonRequest(server, token, 'POST', '/provisioning/v0/accounts', {
      account: { ...base, currency: 'ABC' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.details).toContainEqual({
      field: 'account.currency',
      code: 'unknown_currency',
      message: expect.any(String),
    });
    for (const currency of ['MXN', 'PLN', 'XOF'])
      expect((await createAccount(server, token, { currency })).currency).toBe(currency);
  });

  it('creating an ad platform account in a currency without rates; no job is queued', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const masters = (await server.http.get('/provisioning/v0/adplatform-master-accounts', auth)).json
      .adPlatformMasterAccounts as Array<{ id: number }>;
    const jobsBefore = (await server.http.get('/provisioning/v0/jobs?type=CREATE_ADPLATFORM_ACCOUNT', auth)).headers[
      'x-totalcount'
    ];
    const create = (currency: string) =>
      jsonRequest(
        server,
        token,
        'POST',
        `/provisioning/v0/adplatform-master-accounts/id/${masters[0]!.id}/adplatform-accounts`,
        {
          adPlatformAccount: { name: 'Contoso NG', currency, timeZone: 'Africa/Lagos' },
        },
      );
    expectNoRates(await create('NGN'), 'adPlatformAccount.currency', 'NGN');
    const unknown = await create('ABC');
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.details).toContainEqual({
      field: 'adPlatformAccount.currency',
      code: 'unknown_currency',
      message: expect.any(String),
    });
    expect(
      (await server.http.get('/provisioning/v0/jobs?type=CREATE_ADPLATFORM_ACCOUNT', auth)).headers['x-totalcount'],
    ).toBe(jobsBefore);
  });
});
