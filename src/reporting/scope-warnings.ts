import type { ReportPlan } from '../planner/report-plan.js';
import { compileLabelNames, compileScopeCurrencies, filteredLabelNames } from '../sql/compile-report.js';
import type { CompiledQuery } from '../sql/compiled-query.js';
import type { Store } from '../store/store.js';
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
  /** The answers of these statements while the organization's data version holds; map order is use order. */
  private readonly answers = new Map<string, readonly string[]>();

  constructor(private readonly db: Store) {}

  /** `unknown_labels` for the filter's label names no entity of the level in the organization has. */
  async labels(plan: ReportPlan): Promise<ReportWarning | undefined> {
    const names = filteredLabelNames(plan);
    const query = compileLabelNames(plan, names);
    if (query === undefined) return undefined;
    const found = await this.cachedColumn(plan, query);
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
    const currencies = found ?? (await this.cachedColumn(plan, compileScopeCurrencies(plan)));
    return currencies.length > 1 ? mixedCurrencySort(keys, currencies) : undefined;
  }

  /**
   * The first column of a statement's rows, kept per statement while the organization's data
   * version is unchanged (every write of entities advances it): paging through a report asks the
   * same statement per page, and the scope currencies over keywords cost 11 ms against the page's
   * 17 (p50, scale 2).
   */
  private async cachedColumn(plan: ReportPlan, query: CompiledQuery): Promise<readonly string[]> {
    const version = this.db.versions.of(plan.organizationId);
    const key = `${plan.organizationId} ${version} ${query.sql} ${JSON.stringify(query.params)}`;
    const cached = this.answers.get(key);
    if (cached) {
      this.answers.delete(key);
      this.answers.set(key, cached);
      return cached;
    }
    const rows = await this.db.read((r) => r.all<Record<string, unknown>>(query.sql, query.params));
    const column = rows.map((row) => String(Object.values(row)[0]));
    // Kept only if no write ended while it was read.
    if (this.db.versions.of(plan.organizationId) === version) {
      this.answers.set(key, column);
      if (this.answers.size > CACHED_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
    }
    return column;
  }
}

/** Statement answers kept (a few names or codes each). */
const CACHED_ANSWERS = 1024;
