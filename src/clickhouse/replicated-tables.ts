import { BREAKDOWN_SOURCES } from '../catalog/fact-sources.js';

/**
 * The DuckDB tables the report compiler reads (src/sql, src/catalog), copied to ClickHouse
 * (DESIGN D9: DuckDB stays the system of record). Each is replaced a partition at a time, so a
 * reader never sees half a write:
 * - facts and rollups by (organization, month): a statistics sync rewrites a few days of one month;
 * - dimensions by organization: small, rewritten whole after any write of the organization;
 * - FX rates (no organization) as one partition.
 * A table without `organization_id` of its own gets it from its parent (`organizationOf`), as the
 * last column of the ClickHouse table: the compiler never reads it, partitions and shards do.
 */
export type PartitionKind = 'organization-month' | 'organization' | 'whole';

export interface ReplicatedTable {
  readonly name: string;
  readonly partition: PartitionKind;
  /** The ClickHouse sorting key: organization first, so one organization's rows are contiguous. */
  readonly orderBy: readonly string[];
  /** For a table without organization_id: the parent it joins and the column it joins on. */
  readonly organizationOf?: { readonly parent: string; readonly column: string };
}

const facts = (name: string, ...keys: string[]): ReplicatedTable => ({
  name,
  partition: 'organization-month',
  orderBy: ['organization_id', 'adplatform_account_id', 'day', ...keys],
});
const dimension = (name: string, ...keys: string[]): ReplicatedTable => ({
  name,
  partition: 'organization',
  orderBy: ['organization_id', ...keys],
});

export const REPLICATED_TABLES: readonly ReplicatedTable[] = [
  facts('fact_ad_daily', 'campaign_id', 'ad_group_id', 'ad_id'),
  facts('fact_keyword_daily', 'campaign_id', 'ad_group_id', 'keyword_id'),
  facts('fact_search_term_daily', 'campaign_id', 'ad_group_id', 'keyword_id', 'search_term_id'),
  facts('fact_impression_share_daily', 'campaign_id'),
  facts('fact_audience_runs', 'campaign_id', 'ad_group_id', 'ad_id'),
  facts('call_details', 'id'),
  facts('rollup_campaign_daily', 'campaign_id'),
  facts('rollup_platform_account_daily'),
  // The breakdowns (issue 40): written with the rollups, so copied with them, sorted by their grain.
  ...BREAKDOWN_SOURCES.map((source) =>
    facts(
      source.table,
      ...source.grain.filter((c) => !['organization_id', 'adplatform_account_id', 'day'].includes(c)),
    ),
  ),
  dimension('accounts', 'id'),
  { ...dimension('account_labels', 'account_id'), organizationOf: { parent: 'accounts', column: 'account_id' } },
  dimension('adplatform_accounts', 'id'),
  {
    ...dimension('account_adplatform_links', 'account_id', 'adplatform_account_id'),
    organizationOf: { parent: 'accounts', column: 'account_id' },
  },
  dimension('campaigns', 'adplatform_account_id', 'id'),
  { ...dimension('campaign_labels', 'campaign_id'), organizationOf: { parent: 'campaigns', column: 'campaign_id' } },
  dimension('ad_groups', 'campaign_id', 'id'),
  dimension('keywords', 'ad_group_id', 'id'),
  dimension('ads', 'ad_group_id', 'id'),
  dimension('markups', 'account_id', 'id'),
  { name: 'fx_rates', partition: 'whole', orderBy: ['currency', 'day'] },
];

export const FACT_TABLES = REPLICATED_TABLES.filter((t) => t.partition === 'organization-month');
export const DIMENSION_TABLES = REPLICATED_TABLES.filter((t) => t.partition === 'organization');
