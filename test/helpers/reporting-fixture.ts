import fs from 'node:fs';
import path from 'node:path';
import { serviceConfigSchema, type ServiceConfigInput } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/main.js';
import type { SqlValue } from '../../src/store/sql-values.js';
import { basic, FORM, HttpClient, type HttpResponse } from './http.js';
import { tempDir } from './server.js';
import { copyWorld, WORLD_FILE, yesterdayUtc, type WorldName } from './worlds.js';

/**
 * The reporting tests' world: a database made by the real generator (`adreport data generate`),
 * a real service started on it in-process, and a token per generated organization. Oracle SQL
 * goes through the service's own read pool (the file is never opened twice).
 */
export interface GeneratedOrg {
  readonly id: number;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly token: string;
}

export type QueryInput = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface ReportingFixture {
  readonly service: RunningService;
  readonly http: HttpClient;
  readonly dir: string;
  /** Everything the service logged as an error (a 500 or a background failure). */
  readonly errors: unknown[];
  /** The service's info lines (io.log). */
  readonly logs: string[];
  readonly orgs: readonly GeneratedOrg[];
  /** The last generated day = yesterday (UTC), YYYY-MM-DD. */
  readonly yesterday: string;
  /** GET /reporting/v0/<path> with the query encoded by URLSearchParams (arrays repeat the name). */
  report(path: string, token: string, query?: QueryInput | string): Promise<HttpResponse>;
  get(pathAndQuery: string, token: string): Promise<HttpResponse>;
  json(method: string, pathAndQuery: string, token: string, body: unknown, contentType?: string): Promise<HttpResponse>;
  sql<T extends object = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  write(sql: string, params?: readonly SqlValue[]): Promise<void>;
  close(): Promise<void>;
}

export interface FixtureSpec {
  /** The generated world (helpers/worlds.ts) the service runs on a copy of. */
  readonly world: WorldName;
  /** Settings of the service over the defaults (e.g. a short shutdown timeout). */
  readonly service?: ServiceConfigInput;
}

export function encodeQuery(query: QueryInput | string | undefined): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else params.append(key, String(value));
  }
  // URLSearchParams writes a space as "+", which the service reads back as a space; %20 is as good and unambiguous.
  return params.toString().replaceAll('+', '%20');
}

export async function startReportingFixture(spec: FixtureSpec): Promise<ReportingFixture> {
  const dir = tempDir('adreport-reporting-');
  const dbPath = path.join(dir, WORLD_FILE);
  const { organizations } = await copyWorld(spec.world, dir);
  const errors: unknown[] = [];
  const logs: string[] = [];
  const config = serviceConfigSchema.parse({
    dbPath,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { ratePerSecond: 100_000, burst: 100_000 },
    ...spec.service,
  });
  const service = await startService(config, {
    logError: (entry) => errors.push(entry.error),
    log: (line) => logs.push(line),
  });
  const http = new HttpClient(service.url, service.tls?.cert);
  const orgs: GeneratedOrg[] = [];
  for (const org of organizations) {
    const res = await http.request('POST', '/token', {
      headers: { authorization: basic(org.clientId, org.clientSecret), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    });
    if (res.status !== 200) throw new Error(`token for organization ${org.id}: ${res.status} ${res.text}`);
    orgs.push({
      id: org.id,
      clientId: org.clientId,
      clientSecret: org.clientSecret,
      token: res.json.access_token as string,
    });
  }
  const lastDay = await service.db.read((r) =>
    r.one<{ d: string }>("SELECT strftime(max(day), '%Y-%m-%d') AS d FROM fact_ad_daily"),
  );
  const yesterday = yesterdayUtc();
  if (lastDay?.d !== yesterday) throw new Error(`generated data ends ${lastDay?.d}, not yesterday ${yesterday}`);
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  return {
    service,
    http,
    dir,
    errors,
    logs,
    orgs,
    yesterday,
    report(p, token, query) {
      const q = encodeQuery(query);
      return http.get(`/reporting/v0/${p}${q === '' ? '' : `?${q}`}`, auth(token));
    },
    get(pathAndQuery, token) {
      return http.get(pathAndQuery, auth(token));
    },
    json(method, pathAndQuery, token, body, contentType = 'application/json') {
      return http.request(method, pathAndQuery, {
        headers: { ...auth(token), 'content-type': contentType },
        body: JSON.stringify(body),
      });
    },
    sql(sql, params = []) {
      return service.db.read((r) => r.all(sql, params));
    },
    async write(sql, params = []) {
      await service.db.write('all-organizations', (tx) => tx.run(sql, params));
    },
    async close() {
      http.close();
      await service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** YYYY-MM-DD plus n days. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The Monday of the ISO week of a day. */
export function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const weekday = (d.getUTCDay() + 6) % 7; // Monday 0 .. Sunday 6
  return addDays(day, -weekday);
}

/** a and b equal within `rel` relative (with an absolute floor for values near zero). */
export function approx(a: number | null | undefined, b: number | null | undefined, rel = 1e-6, abs = 1e-6): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= Math.max(abs, rel * Math.max(Math.abs(a), Math.abs(b)));
}

/** All rows of a report, page after page (limit 10000), checking X-TotalCount on the way. */
export async function fetchAll(
  fx: ReportingFixture,
  level: string,
  token: string,
  query: QueryInput,
  plural: string,
): Promise<{ rows: any[]; total: number; totals?: any }> {
  const rows: any[] = [];
  let total = -1;
  let totals: unknown;
  for (let offset = 0; ; offset += 10_000) {
    const res = await fx.report(level, token, { ...query, limit: 10_000, offset });
    if (res.status !== 200)
      throw new Error(`${level} ${JSON.stringify(query)} offset ${offset}: ${res.status} ${res.text.slice(0, 500)}`);
    const page = res.json[plural] as any[];
    if (!Array.isArray(page)) throw new Error(`${level}: no "${plural}" list in ${res.text.slice(0, 300)}`);
    total = Number(res.headers['x-totalcount']);
    if (res.json.totals !== undefined) totals = res.json.totals;
    rows.push(...page);
    if (page.length < 10_000 || rows.length >= total) break;
  }
  return { rows, total, totals };
}

/** The six report levels: path, plural key, fact table and id column, entity table. */
export const LEVELS = [
  { path: 'accounts', plural: 'accounts', fact: 'fact_ad_daily', key: null, table: 'accounts' },
  {
    path: 'adplatform-accounts',
    plural: 'adPlatformAccounts',
    fact: 'fact_ad_daily',
    key: 'adplatform_account_id',
    table: 'adplatform_accounts',
  },
  { path: 'campaigns', plural: 'campaigns', fact: 'fact_ad_daily', key: 'campaign_id', table: 'campaigns' },
  { path: 'adgroups', plural: 'adGroups', fact: 'fact_ad_daily', key: 'ad_group_id', table: 'ad_groups' },
  { path: 'keywords', plural: 'keywords', fact: 'fact_keyword_daily', key: 'keyword_id', table: 'keywords' },
  { path: 'ads', plural: 'ads', fact: 'fact_ad_daily', key: 'ad_id', table: 'ads' },
] as const;
export type Level = (typeof LEVELS)[number];

/** Ids of every entity of a level in an organization. */
export async function entityIds(fx: ReportingFixture, level: Level, organizationId: number): Promise<Set<number>> {
  const rows = await fx.sql<{ id: number }>(`SELECT id FROM ${level.table} WHERE organization_id = $1`, [
    organizationId,
  ]);
  return new Set(rows.map((r) => Number(r.id)));
}
