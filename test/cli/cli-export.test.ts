import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { runCli } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

/**
 * `adreport export` on a generated database: the file holds what the JSON form of the same
 * request says (read back through a server on the same file afterwards), the bar runs on stderr,
 * and bad input is a one-line usage error that leaves no file behind.
 */
let dir: string;
let db: string;
let organization: { id: number; clientId: string; clientSecret: string };

beforeAll(async () => {
  dir = tempDir('adreport-cli-export-');
  db = path.join(dir, 'adreport.duckdb');
  const generated = await runCli([
    'data',
    'generate',
    '--scale',
    '0.05',
    '--days',
    '40',
    '--seed',
    '3',
    '--db',
    db,
    '--json',
  ]);
  expect(generated.code, generated.stderr).toBe(0);
  organization = JSON.parse(generated.stdout.trim().split('\n').pop()!).organizations[0];
}, 300_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const QUERY = 'segments=Day&statistics=impressions,clicks,cost,ctr&sort=-statistics.clicks';

/** The JSON form of the same request, every page, from a server on the same file (started after the CLI let go of it). */
async function jsonForm(endpoint: string, query: string): Promise<any[] & { warnings?: unknown }> {
  const service = await startService(
    serviceConfigSchema.parse({
      dbPath: db,
      host: '127.0.0.1',
      port: 0,
      rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    }),
    { logError: () => undefined },
  );
  const http = new HttpClient(service.url, service.tls?.cert);
  try {
    const token = (
      await http.request('POST', '/token', {
        headers: { authorization: basic(organization.clientId, organization.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      })
    ).json.access_token;
    const rows: any[] = [];
    for (let offset = 0; ; offset += 10_000) {
      const res = await http.get(`/reporting/v0/${endpoint}?${query}&limit=10000&offset=${offset}`, {
        authorization: `Bearer ${token}`,
      });
      expect(res.status, res.text).toBe(200);
      const page = Object.values(res.json)[0] as any[];
      rows.push(...page);
      if (page.length < 10_000) return Object.assign(rows, { warnings: res.json.warnings });
    }
  } finally {
    http.close();
    await service.close();
  }
}

describe('adreport export', () => {
  it("writes the CSV of a report with its progress bar; the numbers are the JSON form's", async () => {
    const out = path.join(dir, 'ads.csv');
    const result = await runCli([
      'export',
      '--org',
      String(organization.id),
      '--endpoint',
      'ads',
      '--query',
      QUERY,
      '--out',
      out,
      '--db',
      db,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/export ads csv \[#+\] 100%/);
    const summary = JSON.parse(result.stdout);
    const records = parse(fs.readFileSync(out), { columns: true }) as Array<Record<string, string>>;
    expect(summary).toMatchObject({
      file: out,
      format: 'csv',
      endpoint: 'ads',
      rows: records.length,
      bytes: fs.statSync(out).size,
    });
    expect(fs.existsSync(`${out}.partial`)).toBe(false);
    const expected = await jsonForm('ads', QUERY);
    expect(records.length).toBe(expected.length);
    expect(records.length).toBeGreaterThan(100);
    records.forEach((record, i) => {
      const row = expected[i];
      expect(Number(record.id)).toBe(row.id);
      expect(record['segments.day']).toBe(row.segments.day);
      expect(Number(record['statistics.clicks'])).toBe(row.statistics.clicks);
      expect(Number(record['statistics.cost'])).toBe(row.statistics.cost);
      expect(record['statistics.ctr'] === '' ? null : Number(record['statistics.ctr'])).toBe(row.statistics.ctr);
    });
  });

  it('takes the format from the file name, writes NDJSON rows shaped like the JSON form, and Parquet', async () => {
    const jsonl = path.join(dir, 'campaigns.jsonl');
    const ndjson = await runCli([
      'export',
      '--org',
      String(organization.id),
      '--endpoint',
      '/reporting/v0/campaigns',
      '--query',
      QUERY,
      '--out',
      jsonl,
      '--db',
      db,
    ]);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const lines = fs
      .readFileSync(jsonl, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const parquet = path.join(dir, 'campaigns.parquet');
    const binary = await runCli([
      'export',
      '--org',
      String(organization.id),
      '--endpoint',
      'campaigns',
      '--query',
      QUERY,
      '--out',
      parquet,
      '--db',
      db,
      '--json',
    ]);
    expect(binary.code, binary.stderr).toBe(0);
    expect(fs.readFileSync(parquet).subarray(0, 4).toString()).toBe('PAR1');
    expect(JSON.parse(binary.stdout).rows).toBe(lines.length);
    expect(lines).toEqual(await jsonForm('campaigns', QUERY));
  });

  it('--query currency=<code> converts the rows as the JSON form does and prints its warnings (issue 19)', async () => {
    const out = path.join(dir, 'campaigns-usd.csv');
    const query = 'statistics=clicks,cost,roas&currency=USD';
    const result = await runCli([
      'export',
      '--org',
      String(organization.id),
      '--endpoint',
      'campaigns',
      '--query',
      query,
      '--out',
      out,
      '--db',
      db,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const records = parse(fs.readFileSync(out), { columns: true }) as Array<Record<string, string>>;
    const expected = await jsonForm('campaigns', query);
    expect(records.map((r) => [Number(r.id), r.currency, Number(r['statistics.cost'])])).toEqual(
      expected.map((row) => [row.id, 'USD', row.statistics.cost]),
    );
    // The generated platform account is not in USD: its days were converted at estimated rates.
    expect(JSON.parse(result.stdout).warnings).toEqual(expected.warnings);
    expect(JSON.parse(result.stdout).warnings).toMatchObject([
      { code: 'estimated_fx_rates', lastDay: expect.any(String) },
    ]);
  });

  it('refuses bad input with one line and exit code 2, and an existing file without --force, leaving nothing behind', async () => {
    const out = path.join(dir, 'refused.csv');
    const cases: Array<[string[], RegExp]> = [
      [['--endpoint', 'campaigns', '--query', 'statistics=bogus'], /^adreport: --query: .*unknown statistic "bogus"/],
      [['--endpoint', 'campaigns', '--query', 'totals=true'], /^adreport: --query: .*totals/],
      [['--endpoint', 'campaigns', '--query', 'format=csv'], /^adreport: --query must not hold format/],
      [
        ['--endpoint', 'campaigns', '--query', 'currency=usd'],
        /^adreport: --query: Invalid query parameter currency: .*supported: AED/,
      ],
      [['--endpoint', 'keywords/facebook'], /^adreport: --endpoint "keywords\/facebook" is not a reporting endpoint/],
      [['--endpoint', 'campaigns', '--format', 'xlsx'], /^adreport: --format must be one of csv, ndjson, parquet/],
      [
        ['--endpoint', 'adplatform-accounts/google-ads', '--query', 'statistics=reach'],
        /^adreport: --query: .*statistics\.reach is not available/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['export', '--org', String(organization.id), ...args, '--out', out, '--db', db]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(fs.existsSync(out)).toBe(false);
    }
    fs.writeFileSync(out, 'keep me');
    const refused = await runCli([
      'export',
      '--org',
      String(organization.id),
      '--endpoint',
      'campaigns',
      '--out',
      out,
      '--db',
      db,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists; use --force/);
    expect(fs.readFileSync(out, 'utf8')).toBe('keep me');
    const forced = await runCli([
      'export',
      '--org',
      String(organization.id),
      '--endpoint',
      'campaigns',
      '--out',
      out,
      '--force',
      '--db',
      db,
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^id,name,/);
    const unknownOrg = await runCli([
      'export',
      '--org',
      '999',
      '--endpoint',
      'campaigns',
      '--out',
      path.join(dir, 'none.csv'),
      '--db',
      db,
    ]);
    expect(unknownOrg.code).toBe(1);
    expect(unknownOrg.stderr).toMatch(/organization 999 does not exist/);
  });
});
