import type { ReportPlan } from '../planner/report-plan.js';
import { compileLabelNames, compileScopeCurrencies, filteredLabelNames } from '../sql/compile-report.js';
import type { Database } from '../store/database.js';
import { moneySortKeys } from './money-sort.js';
import { mixedCurrencySort, unknownLabels, type ReportWarning } from './report-warnings.js';

/**
 * The warnings about what a request asked rather than about its figures (issue 36): a filter on
 * labels no entity has, a sort by money over rows in several currencies. Each is one small
 * statement over entity tables in DuckDB (the system of record, also when ClickHouse serves the
 * report), run only when the request could earn it: a `labels.<name>` in the filter, a money sort
 * key without `currency=`.
 */
export class ScopeWarnings {
  /** The scope currencies per statement while the organization's data version holds; map order is use order. */
  private readonly currencies = new Map<string, readonly string[]>();

  constructor(private readonly db: Database) {}

  /** `unknown_labels` for the filter's label names no entity of the level in the organization has. */
  async labels(plan: ReportPlan): Promise<ReportWarning | undefined> {
    const names = filteredLabelNames(plan);
    const query = compileLabelNames(plan, names);
    if (query === undefined) return undefined;
    const found = (await this.db.read((r) => r.all<{ name: string }>(query.sql, query.params))).map((r) => r.name);
    const missing = names.filter((name) => !found.includes(name));
    if (missing.length === 0) return undefined;
    const spelt = new Map(
      missing.map((name) => [name, found.filter((f) => f.toLowerCase() === name.toLowerCase())] as const),
    );
    return unknownLabels(missing, plan.level === 'accounts' ? 'account' : 'campaign', spelt);
  }

  /**
   * `mixed_currency_sort` when the plan sorts by money in the rows' own currencies and they are
   * several: those of the totals when the report computed them (`found`: the filtered result's
   * exactly), else those of the report's entities (one query; a superset only when a filter on
   * statistics drops every row of a currency).
   */
  async currencySort(plan: ReportPlan, found?: readonly string[]): Promise<ReportWarning | undefined> {
    const keys = moneySortKeys(plan);
    if (keys.length === 0) return undefined;
    const currencies = found ?? (await this.scopeCurrencies(plan));
    return currencies.length > 1 ? mixedCurrencySort(keys, currencies) : undefined;
  }

  /**
   * Kept per statement while the organization's data version is unchanged (every write of
   * entities advances it): paging through a report sorted by money asks the same statement per
   * page, and over keywords it cost 11 ms against the page's 17 (p50, scale 2).
   */
  private async scopeCurrencies(plan: ReportPlan): Promise<readonly string[]> {
    const query = compileScopeCurrencies(plan);
    const version = this.db.versions.of(plan.organizationId);
    const key = `${plan.organizationId} ${version} ${query.sql} ${JSON.stringify(query.params)}`;
    const cached = this.currencies.get(key);
    if (cached) {
      this.currencies.delete(key);
      this.currencies.set(key, cached);
      return cached;
    }
    const rows = await this.db.read((r) => r.all<{ currency: string }>(query.sql, query.params));
    const currencies = rows.map((r) => r.currency);
    // Kept only if no write ended while it was read.
    if (this.db.versions.of(plan.organizationId) === version) {
      this.currencies.set(key, currencies);
      if (this.currencies.size > CACHED_SCOPES) this.currencies.delete(this.currencies.keys().next().value!);
    }
    return currencies;
  }
}

/** Scope currencies kept (entries of a few codes each). */
const CACHED_SCOPES = 1024;
