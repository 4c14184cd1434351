import { insertClient, newClientCredentials } from '../auth/clients.js';
import { HOURLY_RETENTION_DAYS } from '../catalog/fact-sources.js';
import { SCOPES } from '../config/config.js';
import { addDays } from '../shared/dates.js';
import type { Store } from '../store/store.js';
import { calibrate } from './calibration.js';
import { createEntities, type EntityCounts } from './entities.js';
import { insertChunk, prepareOrganization, type Chunk, type FactRun } from './facts.js';
import type { GenerateOptions } from './options.js';
import { createReferenceTables } from './reference-tables.js';
import { sqlNumberList } from './sql.js';
import { generatedDays } from './traffic.js';

/** Candidate cells (entity x cell x day) per chunk: ~1/3 become rows; sorted and written in one transaction. */
const CHUNK_CANDIDATES = 6_000_000;

export interface GeneratedOrganizationCredentials {
  readonly id: number;
  readonly name: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accounts: number;
}

export interface GenerateResult {
  readonly organizations: readonly GeneratedOrganizationCredentials[];
  readonly counts: EntityCounts & {
    readonly adRows: number;
    readonly keywordRows: number;
    readonly impressionShareRows: number;
    readonly audienceRuns: number;
    readonly callDetails: number;
  };
  readonly factRows: number;
  readonly expectedRows: number;
  readonly volumeFactor: number;
  readonly firstDay: string;
  readonly lastDay: string;
}

/** Where a run reports its progress: the CLI draws it as a bar (src/cli/progress-bar.ts). */
export interface GenerateProgress {
  /** `done` of the run's units of work finished, `rows` fact rows written so far. */
  update(done: number, rows: number, detail?: string): void;
  /** The run wrote its last chunk. */
  finish(): void;
}

export interface GenerateHooks {
  /** Called once the run knows its units of work; nothing is reported when absent. */
  readonly progress?: ((totalWork: number) => GenerateProgress) | undefined;
}

/**
 * Builds one run's organizations, clients, accounts, platform accounts, campaign trees and
 * facts. Entities go in one transaction; facts in chunks (organization x block of days), one
 * transaction each, so memory stays bounded and progress can be shown. A run that is stopped
 * keeps its entities and the chunks it finished.
 */
export async function generateData(
  db: Store,
  options: GenerateOptions,
  hooks: GenerateHooks = {},
): Promise<GenerateResult> {
  const days = generatedDays(options.lastDay, options.days);
  const firstDay = days[0]!.date;
  // scrypt takes ~80 ms per secret: before the transaction, in parallel on the libuv pool.
  const credentials = await Promise.all(Array.from({ length: options.orgs }, () => newClientCredentials()));

  const { entities, calibration, clients } = await db.write('all-organizations', async (tx) => {
    await createReferenceTables(tx, days);
    const entities = await createEntities(tx, options, firstDay);
    const clients = [];
    for (const [i, organization] of entities.organizations.entries()) {
      clients.push(
        await insertClient(tx, credentials[i]!, { organizationId: organization.id, scopes: SCOPES, name: 'generated' }),
      );
    }
    const calibration = await calibrate(tx, days, options.targetRows);
    return { entities, calibration, clients };
  });

  const dayLists = {
    search: sqlNumberList(days.map((d) => round6(d.season * d.weekSearch))),
    social: sqlNumberList(days.map((d) => round6(d.season * d.weekSocial))),
    reported: sqlNumberList(days.map((d) => round6(d.reported))),
  };
  const run: FactRun = {
    seed: options.seed,
    factor: calibration.factor,
    firstDay,
    days: options.days,
    // As a sync on the day after the last generated day keeps them: the same seed, the same hours.
    hoursFrom: addDays(options.lastDay, 1 - HOURLY_RETENTION_DAYS),
    dayLists,
    firstIds: entities.firstIds,
  };
  const chunks = planChunks(
    entities.organizations.map((o) => o.id),
    calibration.candidatesByOrg,
    options.days,
  );
  const totalWork = chunks.reduce((sum, c) => sum + c.work, 0);
  const bar = hooks.progress?.(totalWork);
  const totals = { adRows: 0, keywordRows: 0, impressionShareRows: 0, audienceRuns: 0, callDetails: 0 };
  let done = 0;
  bar?.update(0, 0);
  let prepared = -1;
  for (const chunk of chunks) {
    if (chunk.orgK !== prepared) {
      await db.write('all-organizations', (tx) => prepareOrganization(tx, run, chunk.orgK));
      prepared = chunk.orgK;
    }
    const rows = await db.write('all-organizations', (tx) => insertChunk(tx, run, chunk));
    totals.adRows += rows.adRows;
    totals.keywordRows += rows.keywordRows;
    totals.impressionShareRows += rows.impressionShareRows;
    totals.audienceRuns += rows.audienceRuns;
    totals.callDetails += rows.calls;
    done += chunk.work;
    bar?.update(done, totals.adRows + totals.keywordRows, `org ${chunk.orgK + 1}/${options.orgs}`);
  }
  bar?.finish();
  await db.write('no-report-data', async (tx) => {
    for (const table of TEMP_TABLES) await tx.run(`DROP TABLE IF EXISTS temp.${table}`);
  });

  return {
    organizations: entities.organizations.map((o, i) => ({
      id: o.id,
      name: o.name,
      clientId: clients[i]!.clientId,
      clientSecret: clients[i]!.clientSecret,
      accounts: o.accounts,
    })),
    counts: { ...entities.counts, ...totals },
    factRows: totals.adRows + totals.keywordRows,
    expectedRows: calibration.expectedRows,
    volumeFactor: calibration.factor,
    firstDay,
    lastDay: options.lastDay,
  };
}

const TEMP_TABLES = [
  'gen_markets',
  'gen_themes',
  'gen_cells',
  'gen_days',
  'gen_orgs',
  'gen_masters',
  'gen_accounts',
  'gen_pas_pre',
  'gen_pas',
  'gen_campaigns',
  'gen_ad_groups',
  'gen_ads',
  'gen_keywords',
  'gen_markups',
  'gen_ad_cells',
  'gen_keyword_cells',
];

/** Day factors go into SQL as literals: six decimals are plenty and keep the text short. */
function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

interface PlannedChunk extends Chunk {
  /** Candidate cells in the chunk, the unit of progress. */
  readonly work: number;
}

/** Organizations in id order, each in blocks of days small enough for one transaction. */
function planChunks(
  orgIds: readonly number[],
  candidatesByOrg: ReadonlyMap<number, number>,
  days: number,
): PlannedChunk[] {
  const chunks: PlannedChunk[] = [];
  orgIds.forEach((orgId, orgK) => {
    const candidates = candidatesByOrg.get(orgK) ?? 0;
    const perDay = candidates / days;
    const block = perDay <= 0 ? days : Math.max(1, Math.min(days, Math.floor(CHUNK_CANDIDATES / perDay)));
    for (let from = 0; from < days; from += block) {
      const to = Math.min(days - 1, from + block - 1);
      chunks.push({ orgK, orgId, from, to, work: Math.max(1, perDay * (to - from + 1)) });
    }
  });
  return chunks;
}
