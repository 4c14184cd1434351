import type { Executor } from '../store/database.js';
import { createAccounts } from './accounts.js';
import { createCampaignTrees } from './campaign-tree.js';
import { createMarkups } from './markups.js';
import type { GenerateOptions } from './options.js';
import { Draws } from './sql.js';

/**
 * The entity tree of one run, built in SQL from run-local indexes: TEMP tables gen_* first
 * (with everything the facts need: volumes, prices, active day ranges), then the service's
 * tables from them. Ids are (first reserved id) + local index, so an empty database always
 * gets the same ids, and a database with data gets the next ones.
 */

export interface GeneratedOrganization {
  readonly id: number;
  readonly name: string;
  readonly accounts: number;
}

export interface EntityCounts {
  readonly accounts: number;
  readonly platformAccounts: number;
  readonly campaigns: number;
  readonly adGroups: number;
  readonly ads: number;
  readonly keywords: number;
  readonly markups: number;
}

export interface EntityResult {
  readonly organizations: readonly GeneratedOrganization[];
  readonly counts: EntityCounts;
  /** First ids of this run, to turn a fact row's id back into its run-local index. */
  readonly firstIds: { readonly ad: number; readonly keyword: number };
}

export async function createEntities(tx: Executor, options: GenerateOptions, firstDay: string): Promise<EntityResult> {
  const d = new Draws(options.seed);
  const { accounts, platformAccounts } = await createAccounts(tx, d, options, firstDay);
  const { firstIds, ...tree } = await createCampaignTrees(tx, d, options, firstDay);
  const markups = await createMarkups(tx, d, firstDay, options);
  const organizations = await tx.all<{ id: number; name: string; accounts: number }>(
    `SELECT o.id, o.name, count(a.id)::INTEGER AS accounts FROM gen_orgs o LEFT JOIN gen_accounts a ON a.org_k = o.k GROUP BY o.id, o.name ORDER BY o.id`,
  );
  return {
    organizations: organizations.map((o) => ({ id: Number(o.id), name: o.name, accounts: Number(o.accounts) })),
    counts: { accounts, platformAccounts, ...tree, markups },
    firstIds,
  };
}
