import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { importFxRates } from '../../src/reference/fx-import.js';
import { Database } from '../../src/store/database.js';
import { runCli } from '../helpers/cli.js';
import { addDays, approx, startReportingFixture } from '../helpers/reporting-fixture.js';
import { tempDir } from '../helpers/server.js';

/**
 * `adreport fx import FILE` through the built bin (issue 19, item 3): real daily rates in the long
 * layout or the ECB's, published from then on, carried over the days between two imported ones,
 * kept across restarts and reloads of the reference file; a bad file changes nothing. Expected
 * rates come from the files written here and from data/fx read by this test.
 */
let dir: string;
let db: string;

beforeAll(async () => {
  dir = tempDir('adreport-fx-import-');
  db = path.join(dir, 'adreport.duckdb');
  // Any admin command makes the file (schema, reference rates).
  const created = await runCli(['orgs', 'create', '--name', 'FX', '--db', db]);
  expect(created.code, created.stderr).toBe(0);
}, 300_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The reference file, read here: rate of a currency on a day, and the codes it has. */
const reference = (() => {
  const lines = zlib
    .gunzipSync(fs.readFileSync('data/fx/eur-reference-rates.csv.gz'))
    .toString('utf8')
    .trimEnd()
    .split('\n');
  const codes = lines[0]!.split(',').slice(1);
  const byDay = new Map(lines.slice(1).map((line) => [line.slice(0, 10), line.split(',').slice(1).map(Number)]));
  return { codes: new Set(codes), rate: (currency: string, day: string) => byDay.get(day)![codes.indexOf(currency)]! };
})();

interface StoredRate {
  rate: number;
  published: boolean;
}

/** fx_rates and fx_imported_rates as stored, read with the file to ourselves (no server holds it). */
async function stored<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const store = await Database.open(db, { readConnections: 1, maxQueued: 4 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
async function ratesOf(currency: string, from: string, to: string): Promise<Record<string, StoredRate>> {
  const rows = await stored((s) =>
    s.read((r) =>
      r.all<{ day: string; rate: number; published: boolean }>(
        "SELECT strftime(day, '%Y-%m-%d') AS day, units_per_eur::DOUBLE AS rate, published FROM fx_rates WHERE currency = $1 AND day BETWEEN $2::DATE AND $3::DATE ORDER BY day",
        [currency, from, to],
      ),
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.day, { rate: r.rate, published: r.published }]));
}
/** A fingerprint of both tables: a refused import must leave it as it was. */
const fingerprint = () =>
  stored((s) =>
    s.read(async (r) => [
      await r.one(
        'SELECT count(*)::VARCHAR AS n, sum(hash(day, currency, units_per_eur, published))::VARCHAR AS h FROM fx_rates',
      ),
      await r.one(
        'SELECT count(*)::VARCHAR AS n, sum(hash(day, currency, units_per_eur))::VARCHAR AS h FROM fx_imported_rates',
      ),
    ]),
  );

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Real ECB reference rates (eurofxref-hist.csv's layout: newest first, N/A, a trailing comma), trimmed to their first 20 currencies. */
const ECB_HEADER = 'Date,USD,JPY,BGN,CYP,CZK,DKK,EEK,GBP,HUF,LTL,LVL,MTL,PLN,ROL,RON,SEK,SIT,SKK,CHF,ISK,';
const ECB_ROWS = [
  '2024-03-18,1.0872,162.43,1.9558,N/A,25.044,7.4564,N/A,0.85445,394.80,N/A,N/A,N/A,4.3053,N/A,4.9706,11.2930,N/A,N/A,0.9655,149.70,',
  '2024-03-15,1.0890,161.69,1.9558,N/A,24.950,7.4570,N/A,0.85458,395.38,N/A,N/A,N/A,4.2908,N/A,4.9698,11.2930,N/A,N/A,0.9643,149.50,',
  '2024-03-14,1.0925,161.77,1.9558,N/A,25.025,7.4567,N/A,0.85400,393.58,N/A,N/A,N/A,4.2860,N/A,4.9711,11.2370,N/A,N/A,0.9620,149.30,',
];

describe('adreport fx import FILE', () => {
  it("long layout: the file's rates replace the stored ones and are published, weekends between them carry Friday's rate; unsupported codes are skipped and counted", async () => {
    const file = write(
      'rates.csv',
      [
        'date,currency,unitsPerEur',
        // Thursday 2026-01-15 .. Tuesday 2026-01-20, around a weekend.
        ...['2026-01-15', '2026-01-16', '2026-01-19', '2026-01-20'].flatMap((day, i) => [
          `${day},USD,${(1.16 + i / 100).toFixed(4)}`,
          `${day},GBP,0.8${i}10`,
        ]),
        '2026-01-16,EUR,1',
        '2026-01-16,XYZ,2.5',
        '2026-01-19,CYP,0.5853',
        '',
      ].join('\r\n'),
    );
    const result = await runCli(['fx', 'import', file, '--db', db, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      imported: {
        rates: 8,
        currencies: ['GBP', 'USD'],
        from: '2026-01-15',
        to: '2026-01-20',
        carriedForward: 4,
        skipped: { currencies: ['CYP', 'XYZ'], rates: 2 },
      },
    });
    expect(await ratesOf('USD', '2026-01-14', '2026-01-21')).toEqual({
      '2026-01-14': { rate: reference.rate('USD', '2026-01-14'), published: false },
      '2026-01-15': { rate: 1.16, published: true },
      '2026-01-16': { rate: 1.17, published: true },
      '2026-01-17': { rate: 1.17, published: true },
      '2026-01-18': { rate: 1.17, published: true },
      '2026-01-19': { rate: 1.18, published: true },
      '2026-01-20': { rate: 1.19, published: true },
      '2026-01-21': { rate: reference.rate('USD', '2026-01-21'), published: false },
    });
    expect((await ratesOf('GBP', '2026-01-17', '2026-01-17'))['2026-01-17']).toEqual({ rate: 0.811, published: true });
    // Again with another Friday rate: it replaces the first, and the weekend follows it.
    const again = await runCli([
      'fx',
      'import',
      write('friday.csv', 'date,currency,unitsPerEur\n2026-01-16,USD,1.1234\n'),
      '--db',
      db,
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).imported).toMatchObject({ rates: 1, carriedForward: 0 });
    const usd = await ratesOf('USD', '2026-01-16', '2026-01-19');
    expect(Object.values(usd).map((r) => r.rate)).toEqual([1.1234, 1.1234, 1.1234, 1.18]);
    expect(
      await stored((s) => s.read((r) => r.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM fx_imported_rates'))),
    ).toEqual({ n: 8 });
  });

  it('the ECB layouts: eurofxref-hist.csv (newest first, N/A, trailing commas) and the one-day eurofxref.csv', async () => {
    const hist = await runCli([
      'fx',
      'import',
      write('eurofxref-hist.csv', `${ECB_HEADER}\n${ECB_ROWS.join('\n')}\n`),
      '--db',
      db,
      '--json',
    ]);
    expect(hist.code, hist.stderr).toBe(0);
    const codes = ECB_HEADER.split(',').slice(1, -1);
    const supported = codes.filter((c) => reference.codes.has(c));
    const legacy = codes.filter((c) => !reference.codes.has(c));
    expect(legacy).toEqual(['CYP', 'EEK', 'LTL', 'LVL', 'MTL', 'ROL', 'SIT', 'SKK']);
    expect(JSON.parse(hist.stdout)).toEqual({
      // N/A cells are no rates: only the legacy codes have them in these rows.
      imported: {
        rates: 3 * supported.length,
        currencies: [...supported].sort(),
        from: '2024-03-14',
        to: '2024-03-18',
        carriedForward: 2 * supported.length,
        skipped: { currencies: [], rates: 0 },
      },
    });
    const gbp = await ratesOf('GBP', '2024-03-14', '2024-03-18');
    expect(Object.fromEntries(Object.entries(gbp).map(([day, r]) => [day, r.rate]))).toEqual({
      '2024-03-14': 0.854,
      '2024-03-15': 0.85458,
      '2024-03-16': 0.85458,
      '2024-03-17': 0.85458,
      '2024-03-18': 0.85445,
    });
    expect(Object.values(gbp).every((r) => r.published)).toBe(true);
    // The ECB's own numbers, not the reference file's crosses through USD.
    expect(reference.rate('USD', '2024-03-18')).not.toBe(1.0872);
    expect((await ratesOf('USD', '2024-03-18', '2024-03-18'))['2024-03-18']!.rate).toBe(1.0872);

    const daily = await runCli([
      'fx',
      'import',
      write(
        'eurofxref.csv',
        'Date, USD, JPY, BGN, CYP, CZK, DKK, GBP, \n19 March 2024, 1.0861, 163.00, 1.9558, N/A, 25.101, 7.4571, 0.85350, \n',
      ),
      '--db',
      db,
      '--json',
    ]);
    expect(daily.code, daily.stderr).toBe(0);
    expect(JSON.parse(daily.stdout).imported).toEqual({
      rates: 6,
      currencies: ['BGN', 'CZK', 'DKK', 'GBP', 'JPY', 'USD'],
      from: '2024-03-19',
      to: '2024-03-19',
      carriedForward: 0,
      skipped: { currencies: [], rates: 0 },
    });
    expect((await ratesOf('JPY', '2024-03-19', '2024-03-19'))['2024-03-19']).toEqual({ rate: 163, published: true });
  });

  it('a bad file is one line on stderr and exit code 1, and changes nothing; a missing FILE is a usage error (2)', async () => {
    const before = await fingerprint();
    const cases: Array<[string, string, RegExp]> = [
      [
        'header.csv',
        'day,code,rate\n2026-01-15,USD,1.1\n',
        /line 1: the header must be date,currency,unitsPerEur .* or the ECB layout/,
      ],
      ['empty.csv', '', /line 1: the header must be/],
      [
        'date.csv',
        'date,currency,unitsPerEur\n2026-01-15,USD,1.1\n2026-02-30,USD,1.1\n',
        /line 3: "2026-02-30" is not a date/,
      ],
      [
        'negative.csv',
        'date,currency,unitsPerEur\n2026-01-15,USD,-1.1\n',
        /line 2: the USD rate "-1.1" is not a positive decimal/,
      ],
      [
        'text.csv',
        'date,currency,unitsPerEur\n2026-01-15,USD,one\n',
        /line 2: the USD rate "one" is not a positive decimal/,
      ],
      ['zero.csv', 'date,currency,unitsPerEur\n2026-01-15,USD,0\n', /line 2: the USD rate "0"/],
      ['huge.csv', 'date,currency,unitsPerEur\n2026-01-15,USD,12345678901\n', /at most 10 integer digits/],
      ['lower.csv', 'date,currency,unitsPerEur\n2026-01-15,usd,1.1\n', /line 2: "usd" is not a currency code/],
      [
        'twice.csv',
        'date,currency,unitsPerEur\n2026-01-15,USD,1.1\n2026-01-16,USD,1.1\n2026-01-15,USD,1.2\n',
        /line 4: a second USD rate for 2026-01-15 \(the first is on line 2\)/,
      ],
      [
        'future.csv',
        `date,currency,unitsPerEur\n2026-01-15,USD,1.1\n${addDays(new Date().toISOString().slice(0, 10), 2)},USD,1.1\n`,
        /line 3: .* is in the future/,
      ],
      [
        'eur.csv',
        'date,currency,unitsPerEur\n2026-01-15,EUR,1.1\n',
        /line 2: EUR is the base of the rates: its rate is 1, not 1.1/,
      ],
      [
        'legacy.csv',
        'date,currency,unitsPerEur\n2001-01-15,CYP,0.58\n',
        /no rates of a supported currency \(skipped CYP\)/,
      ],
      [
        'columns.csv',
        'date,currency,unitsPerEur\n2026-01-15,USD\n',
        /line 2: expected date,currency,unitsPerEur \(3 values\), found 2/,
      ],
      [
        'ecb-cells.csv',
        `${ECB_HEADER}\n${ECB_ROWS[0]!.replace(',1.0872', '')}\n`,
        /line 2: 19 values for 20 currencies/,
      ],
      ['ecb-code.csv', 'Date,USD,Japan,\n2024-03-18,1.0872,162.43,\n', /line 1: "Japan" is not a currency code/],
      [
        'late.csv',
        [
          'date,currency,unitsPerEur',
          ...Array.from({ length: 400 }, (_, i) => `${addDays('2025-01-01', i)},USD,1.1`),
          '2026-02-05,USD,n/a',
        ].join('\n'),
        /line 402: the USD rate "n\/a"/,
      ],
    ];
    for (const [name, text, message] of cases) {
      const result = await runCli(['fx', 'import', write(name, text), '--db', db]);
      expect(result.code, name).toBe(1);
      expect(result.stdout, name).toBe('');
      expect(result.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(result.stderr, name).toMatch(/^adreport: /);
      expect(result.stderr, name).toContain(name);
      expect(result.stderr, name).toMatch(message);
    }
    const missing = await runCli(['fx', 'import', path.join(dir, 'nope.csv'), '--db', db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^adreport: cannot read .*nope\.csv: ENOENT\n$/);
    for (const args of [[], [path.join(dir, 'a.csv'), path.join(dir, 'b.csv')]]) {
      const usage = await runCli(['fx', 'import', ...args, '--db', db]);
      expect(usage.code, args.join(' ')).toBe(2);
      expect(usage.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(await fingerprint()).toEqual(before);
    const help = await runCli(['fx', 'import', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('date,currency,unitsPerEur');
  }, 360_000);

  it('a restarted server still has the imported rates, also after the reference file is loaded again', async () => {
    const config = serviceConfigSchema.parse({ dbPath: db, host: '127.0.0.1', port: 0 });
    const expected = await ratesOf('USD', '2026-01-14', '2026-01-21');
    const first = await startService(config, { logError: () => undefined });
    const read = (service: typeof first) =>
      service.db.read((r) =>
        r.all<{ day: string; rate: number; published: boolean }>(
          "SELECT strftime(day, '%Y-%m-%d') AS day, units_per_eur::DOUBLE AS rate, published FROM fx_rates WHERE currency = 'USD' AND day BETWEEN DATE '2026-01-14' AND DATE '2026-01-21' ORDER BY day",
        ),
      );
    try {
      expect(
        Object.fromEntries((await read(first)).map((r) => [r.day, { rate: r.rate, published: r.published }])),
      ).toEqual(expected);
      // As if data/fx had changed: the next start loads the reference file again.
      await first.db.write('all-organizations', (tx) =>
        tx.run("UPDATE reference_data SET checksum = 'stale' WHERE name = 'fx-rates'"),
      );
    } finally {
      await first.close();
    }
    const second = await startService(config, { logError: () => undefined });
    try {
      const loaded = await second.db.read((r) =>
        r.one<{ checksum: string }>("SELECT checksum FROM reference_data WHERE name = 'fx-rates'"),
      );
      expect(loaded?.checksum).toMatch(/^sha256:/);
      expect(
        Object.fromEntries((await read(second)).map((r) => [r.day, { rate: r.rate, published: r.published }])),
      ).toEqual(expected);
      const ecb = await second.db.read((r) =>
        r.one<{ rate: number; published: boolean }>(
          "SELECT units_per_eur::DOUBLE AS rate, published FROM fx_rates WHERE currency = 'GBP' AND day = DATE '2024-03-16'",
        ),
      );
      expect(ecb).toEqual({ rate: 0.85458, published: true });
      // Every (day, currency) once, the reference's days back to the file's values.
      const dup = await second.db.read((r) =>
        r.one<{ n: number }>(
          'SELECT count(*)::INTEGER AS n FROM (SELECT day, currency FROM fx_rates GROUP BY ALL HAVING count(*) > 1)',
        ),
      );
      expect(dup).toEqual({ n: 0 });
      const other = await second.db.read((r) =>
        r.one<{ rate: number; published: boolean }>(
          "SELECT units_per_eur::DOUBLE AS rate, published FROM fx_rates WHERE currency = 'USD' AND day = DATE '2026-03-02'",
        ),
      );
      expect(other).toEqual({ rate: reference.rate('USD', '2026-03-02'), published: false });
    } finally {
      await second.close();
    }
  });
});

describe('importing while the server serves (the admin channel runs importFxRates in the server)', () => {
  it('reports keep being answered during an import of 8 years of daily rates of 16+ currencies, and convert with the new rates from its commit on', async () => {
    const fx = await startReportingFixture({ world: 'tiny-30d' });
    try {
      const token = fx.orgs[0]!.token;
      const Y = fx.yesterday;
      const from = addDays(Y, -29);
      const own = (
        await fx.sql<{ currency: string }>(
          'SELECT DISTINCT currency FROM adplatform_accounts WHERE organization_id = $1',
          [fx.orgs[0]!.id],
        )
      ).map((r) => r.currency);
      // Into a currency none of the platform accounts is in, so that every row converts.
      const target = ['USD', 'GBP', 'CHF'].find((c) => !own.includes(c))!;
      const currencies = [
        ...new Set([
          'USD',
          'GBP',
          'CHF',
          'JPY',
          'SEK',
          'NOK',
          'DKK',
          'PLN',
          'CZK',
          'HUF',
          'AUD',
          'CAD',
          'BRL',
          'MXN',
          'NZD',
          'SGD',
          ...own,
        ]),
      ].filter((c) => c !== 'EUR');
      const lines = ['date,currency,unitsPerEur'];
      for (let day = '2019-01-01'; day <= Y; day = addDays(day, 1))
        currencies.forEach((c, i) => lines.push(`${day},${c},${(1 + i / 7).toFixed(4)}`));
      const query = { currency: target, statistics: 'cost', totals: true, startDate: from, endDate: Y };
      const before = await fx.report('campaigns', token, query);
      expect(before.status).toBe(200);
      expect(before.json.warnings?.map((w: any) => w.code)).toContain('estimated_fx_rates');

      let importing = true;
      const started = performance.now();
      const importDone = importFxRates(fx.service.db, lines.join('\n')).finally(() => (importing = false));
      const statuses: number[] = [];
      const load = (async () => {
        while (importing) statuses.push((await fx.report('campaigns', token, query)).status);
      })();
      const result = await importDone;
      const seconds = (performance.now() - started) / 1000;
      // Answered while the import's write transaction ran, not merely started before it.
      const answeredDuring = statuses.length;
      await load;
      expect(answeredDuring).toBeGreaterThan(0);
      expect(result.rates).toBe(lines.length - 1);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(fx.errors).toEqual([]);
      // Reported so that the README's figure can be checked.
      console.log(
        `fx import of ${result.rates} rates took ${seconds.toFixed(2)} s; ${statuses.length} reports answered meanwhile`,
      );

      const after = await fx.report('campaigns', token, query);
      const [oracle] = await fx.sql<{ cost: number }>(
        `SELECT sum(f.cost::DOUBLE * rt.units_per_eur::DOUBLE / rs.units_per_eur::DOUBLE) AS cost
           FROM fact_ad_daily f JOIN adplatform_accounts p ON p.id = f.adplatform_account_id
           JOIN fx_rates rs ON rs.day = f.day AND rs.currency = p.currency JOIN fx_rates rt ON rt.day = f.day AND rt.currency = 'USD'
          WHERE f.organization_id = $1 AND f.day BETWEEN $2::DATE AND $3::DATE`.replace("'USD'", '$4'),
        [fx.orgs[0]!.id, from, Y, target],
      );
      expect(approx(after.json.totals.cost, oracle!.cost, 1e-9, 2e-6)).toBe(true);
      expect(after.json.totals.cost).not.toBe(before.json.totals.cost);
      // The platform accounts' currencies are among the imported ones: every converted day is published now.
      expect(after.json.warnings).toBeUndefined();
    } finally {
      await fx.close();
    }
  });
});
