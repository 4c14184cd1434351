/**
 * The world of bench/many-tenants.ts (issue 39 item 2): 1,000 organizations of very different
 * sizes, about scale 10 in total, whose facts lie in the file as a running service's daily syncs
 * would have appended them rather than one organization after another.
 *
 * How it is made:
 *
 * 1. The generator (src/generator, what `adreport data generate` runs) is called four times on one
 *    file, one tier of organizations each, with the same last day and its own seed. Inside a tier
 *    the generator splits accounts evenly and draws each account's volume (lognormal), platform
 *    accounts (1-3) and campaigns (3-40 each), so sizes spread within a tier as well as between
 *    tiers. The tiers are a long tail: 1 organization of 4 accounts and ~2.5 M fact rows, 9 of 3
 *    accounts (~3 M together), 90 of 1 account (~2.5 M) and 900 of 1 account (~2 M, ~2,200 rows on average
 *    each over 400 days). That file (generated.duckdb) is organization-ordered: the generator
 *    writes organization after organization, each in day order.
 * 2. synced.duckdb is a copy whose fact and rollup tables are rewritten in the order the
 *    service's scheduled sync leaves them (src/jobs/statistics-sync-queue.ts,
 *    src/statistics/fact-replacement.ts): every `statistics.syncMs` (6 h) each platform account
 *    gets one SYNC_STATISTICS job over its trailing `trailingDays` (30) days, which DELETEs the
 *    window and INSERTs the platform's rows for it, ordered by day (and rewrites the window's
 *    rollup rows the same way). A row of day d therefore survives from the last round whose window
 *    holds d: the round of day min(d + 29, last day). Each round before the last leaves one day
 *    per platform account (the window's oldest; the other 29 are replaced by the next round); the
 *    last round leaves each account's 30 days as one block. Within a round, platform accounts
 *    come in job order (the queue's ORDER BY p.id; in production ids are handed out as tenants
 *    sign up and add accounts, so they do not follow organizations: modelled as a fixed
 *    pseudo-random order, hash(id)). The file holds the surviving rows in that order, compacted:
 *    a live service's file would also hold the deleted rows' holes until DuckDB vacuums them, so
 *    this world is, if anything, kind to DuckDB.
 *
 * The service is assumed to have run the whole 400 days with every account linked (an account
 * linked later arrives as a backfill: its own contiguous block per 31 days, which is kinder to
 * zone maps). Entity tables (campaigns, ad groups, keywords) are left as generated.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { insertClient, newClientCredentials } from '../src/auth/clients.js';
import { generateData } from '../src/generator/generate.js';
import type { GenerateOptions } from '../src/generator/options.js';
import { withGeneratorStore } from '../src/generator/store.js';
import { root } from './lib.js';

export interface Tier {
  readonly name: string;
  readonly orgs: number;
  readonly accounts: number;
  readonly targetRows: number;
  readonly seed: number;
}

/** The long tail: ~10 M fact rows (ad + keyword) over 1,000 organizations. */
export const TIERS: readonly Tier[] = [
  { name: 'large', orgs: 1, accounts: 4, targetRows: 2_500_000, seed: 11 },
  { name: 'medium', orgs: 9, accounts: 27, targetRows: 3_000_000, seed: 12 },
  { name: 'small', orgs: 90, accounts: 90, targetRows: 2_500_000, seed: 13 },
  { name: 'tiny', orgs: 900, accounts: 900, targetRows: 2_000_000, seed: 14 },
];
export const DAYS = 400;
/** The scheduled sync's window (config statistics.trailingDays, default 30). */
export const TRAILING_DAYS = 30;

export interface WorldOrganization {
  readonly id: number;
  readonly tier: string;
  /** Fact rows (ad + keyword) over the whole range, and ad rows in the last 30 days. */
  readonly factRows: number;
  readonly adRows30d: number;
  /** A reporting client made for the bench (the generator's secrets are not kept). */
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface World {
  readonly dir: string;
  /** As generated: organization after organization. */
  readonly generatedPath: string;
  /** The same rows in the order daily syncs leave them. */
  readonly syncedPath: string;
  readonly lastDay: string;
  readonly organizations: number;
  /** Fact rows per organization: smallest, median, largest. */
  readonly sizes: { readonly min: number; readonly median: number; readonly max: number };
  /** The two organizations measured: the median of the 900 tiny ones, and the largest. */
  readonly small: WorldOrganization;
  readonly large: WorldOrganization;
  readonly factRows: { readonly ad: number; readonly keyword: number };
  readonly seconds: { readonly generate: number; readonly rewrite: number };
}

export const WORLD_DIR = path.join(root, 'bench', 'out', 'many-tenants');

/** Fact and rollup tables the syncs write, with the columns that order rows inside one account's block. */
export const SYNCED_TABLES: ReadonlyArray<{ table: string; within: string }> = [
  { table: 'fact_ad_daily', within: 'campaign_id, ad_group_id, ad_id, device, network' },
  { table: 'fact_keyword_daily', within: 'campaign_id, ad_group_id, keyword_id, device, network' },
  { table: 'fact_impression_share_daily', within: 'campaign_id, device, network' },
  { table: 'fact_audience_runs', within: 'campaign_id, ad_group_id, ad_id, user_from' },
  { table: 'rollup_campaign_daily', within: 'campaign_id, device, network' },
  { table: 'rollup_platform_account_daily', within: 'device, network' },
];

/**
 * Builds the world into WORLD_DIR (generation ~10 min on 2 shared cores, most of it the 900 tiny
 * organizations), or returns the one there when `reuse` (or it ends yesterday). Each phase is
 * kept once done, so an interrupted build resumes.
 */
export async function manyTenantsWorld(reuse: boolean, log: (line: string) => void): Promise<World> {
  const meta = path.join(WORLD_DIR, 'world.json');
  const generatedMeta = path.join(WORLD_DIR, 'generated.json');
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  if (existsSync(meta)) {
    const known = JSON.parse(readFileSync(meta, 'utf8')) as World;
    if ((reuse || known.lastDay === yesterday) && existsSync(known.syncedPath) && existsSync(known.generatedPath))
      return known;
  }
  const generatedPath = path.join(WORLD_DIR, 'generated.duckdb');
  const syncedPath = path.join(WORLD_DIR, 'synced.duckdb');
  let generated = existsSync(generatedMeta)
    ? (JSON.parse(readFileSync(generatedMeta, 'utf8')) as { lastDay: string; seconds: number })
    : undefined;
  if (!generated || !existsSync(generatedPath) || !(reuse || generated.lastDay === yesterday)) {
    rmSync(WORLD_DIR, { recursive: true, force: true });
    mkdirSync(WORLD_DIR, { recursive: true });
    log(`generating ${TIERS.length} tiers into ${generatedPath} ...`);
    const started = performance.now();
    await withGeneratorStore(generatedPath, { memoryLimit: '2GB' }, async (db) => {
      for (const tier of TIERS) {
        const options: GenerateOptions = {
          scale: tier.targetRows / 1_000_000,
          days: DAYS,
          seed: tier.seed,
          orgs: tier.orgs,
          accounts: tier.accounts,
          targetRows: tier.targetRows,
          lastDay: yesterday,
        };
        const t = performance.now();
        const result = await generateData(db, options);
        log(
          `  tier ${tier.name}: ${tier.orgs} organizations, ${result.counts.platformAccounts} platform accounts, ` +
            `${result.factRows} fact rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
        );
      }
    });
    generated = { lastDay: yesterday, seconds: (performance.now() - started) / 1000 };
    writeFileSync(generatedMeta, JSON.stringify(generated));
  }
  const lastDay = generated.lastDay;
  const { small, large, sizes, organizations } = await pickOrganizations(generatedPath, lastDay);

  const started = performance.now();
  copyFileSync(generatedPath, syncedPath);
  rmSync(`${syncedPath}.wal`, { force: true });
  const factRows = await rewriteInSyncOrder(syncedPath, lastDay, log);
  const world: World = {
    dir: WORLD_DIR,
    generatedPath,
    syncedPath,
    lastDay,
    organizations,
    sizes,
    small,
    large,
    factRows,
    seconds: { generate: generated.seconds, rewrite: (performance.now() - started) / 1000 },
  };
  writeFileSync(meta, JSON.stringify(world, null, 2));
  return world;
}

/** The tier of an organization, from the seed in its generated name. */
const tierOf = (name: string) => TIERS.find((t) => name.endsWith(`(seed ${t.seed})`))?.name ?? '?';

/**
 * The large organization (most fact rows) and the small one (the median of the tiny tier by fact
 * rows, among those with ad rows in the last 30 days), each given a reporting client.
 */
async function pickOrganizations(
  file: string,
  lastDay: string,
): Promise<Pick<World, 'small' | 'large' | 'sizes' | 'organizations'>> {
  const rows = await withGeneratorStore(file, { memoryLimit: '1GB' }, (db) =>
    db.read((r) =>
      r.all<{ id: number; name: string; rows: number; recent: number }>(
        `WITH f AS (
           SELECT organization_id, count(*) AS n, count(*) FILTER (WHERE day > DATE '${lastDay}' - 30) AS recent FROM fact_ad_daily GROUP BY ALL
           UNION ALL SELECT organization_id, count(*), 0 FROM fact_keyword_daily GROUP BY ALL
         )
         SELECT o.id, o.name, coalesce(sum(f.n), 0)::BIGINT AS rows, coalesce(sum(f.recent), 0)::BIGINT AS recent
           FROM organizations o LEFT JOIN f ON f.organization_id = o.id GROUP BY ALL ORDER BY rows, o.id`,
      ),
    ),
  );
  const all = rows.map((r) => ({
    id: Number(r.id),
    tier: tierOf(r.name),
    rows: Number(r.rows),
    recent: Number(r.recent),
  }));
  const tiny = all.filter((o) => o.tier === 'tiny' && o.recent > 0);
  const smallRow = tiny[Math.floor(tiny.length / 2)]!;
  const largeRow = all.at(-1)!;
  const clients = await Promise.all([newClientCredentials(), newClientCredentials()]);
  await withGeneratorStore(file, { memoryLimit: '1GB' }, (db) =>
    db.write('all-organizations', async (tx) => {
      await insertClient(tx, clients[0]!, { organizationId: smallRow.id, scopes: ['reporting'], name: 'many-tenants' });
      await insertClient(tx, clients[1]!, { organizationId: largeRow.id, scopes: ['reporting'], name: 'many-tenants' });
    }),
  );
  const org = (o: typeof smallRow, c: (typeof clients)[number]): WorldOrganization => ({
    id: o.id,
    tier: o.tier,
    factRows: o.rows,
    adRows30d: o.recent,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
  });
  return {
    organizations: all.length,
    sizes: { min: all[0]!.rows, median: all[Math.floor(all.length / 2)]!.rows, max: largeRow.rows },
    small: org(smallRow, clients[0]!),
    large: org(largeRow, clients[1]!),
  };
}

/**
 * The order a row is left in by the scheduled sync: the round that last wrote its day, the
 * platform account's place in that round's job order, then its day and the columns its INSERT
 * orders by.
 */
export function syncOrder(lastDay: string, within: string): string {
  return `least(day, DATE '${lastDay}' - ${TRAILING_DAYS - 1}), hash(adplatform_account_id, 39), adplatform_account_id, day, ${within}`;
}

/** Rewrites the synced tables of a file in sync order (same rows), checkpointed; returns the fact counts. */
async function rewriteInSyncOrder(
  file: string,
  lastDay: string,
  log: (line: string) => void,
): Promise<World['factRows']> {
  const instance = await DuckDBInstance.create(file, { memory_limit: '3GB', temp_directory: `${file}.tmp` });
  const connection = await instance.connect();
  try {
    for (const { table, within } of SYNCED_TABLES) {
      const before = await checksum(connection, table);
      await connection.run(`CREATE OR REPLACE TEMP TABLE resync AS SELECT * FROM ${table}`);
      await connection.run(`DELETE FROM ${table}`);
      await connection.run('CHECKPOINT');
      await connection.run(`INSERT INTO ${table} SELECT * FROM resync ORDER BY ${syncOrder(lastDay, within)}`);
      await connection.run('DROP TABLE resync');
      await connection.run('CHECKPOINT');
      const after = await checksum(connection, table);
      if (after !== before) throw new Error(`${table}: rows changed in the rewrite (${before} -> ${after})`);
      log(`  ${table} rewritten in sync order (${before})`);
    }
    const ad = await one(connection, 'SELECT count(*) FROM fact_ad_daily');
    const keyword = await one(connection, 'SELECT count(*) FROM fact_keyword_daily');
    return { ad: Number(ad), keyword: Number(keyword) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Row count and an order-independent hash of every row: the rewrite keeps the same rows. */
export async function checksum(connection: DuckDBConnection, table: string): Promise<string> {
  const value = await one(
    connection,
    `SELECT count(*) || ' rows, hash ' || sum(hash(${table})::HUGEINT) FROM ${table}`,
  );
  return String(value);
}

async function one(connection: DuckDBConnection, sql: string): Promise<unknown> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRows()[0]?.[0];
}

/**
 * The candidate layout fix, as the service would run it: rewrites the rows of the days from..to
 * (inclusive) of every synced table in (organization_id, day, ...) order, in one transaction.
 * Same rows, only their place in the file changes. After each round of scheduled syncs over the
 * window they replaced, and once over older days: bench/many-tenants.ts measures whether it pays.
 */
export async function clusterFactDays(connection: DuckDBConnection, from: string, to: string): Promise<void> {
  const days = `day BETWEEN DATE '${from}' AND DATE '${to}'`;
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const { table, within } of SYNCED_TABLES) {
      await connection.run(`CREATE OR REPLACE TEMP TABLE cluster_rows AS SELECT * FROM ${table} WHERE ${days}`);
      await connection.run(`DELETE FROM ${table} WHERE ${days}`);
      await connection.run(
        `INSERT INTO ${table} SELECT * FROM temp.cluster_rows ORDER BY organization_id, day, adplatform_account_id, ${within}`,
      );
      await connection.run('DROP TABLE temp.cluster_rows');
    }
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
}
