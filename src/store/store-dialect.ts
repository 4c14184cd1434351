/**
 * Where the service's own SQL differs between its two stores (DESIGN D12). Statements are written
 * once, in the SQL both engines accept where there is one; each engine's differences live in one
 * place: `DUCKDB_DIALECT` here, `postgres/postgres-dialect.ts` for PostgreSQL.
 */
export interface StoreDialect {
  readonly engine: 'duckdb' | 'postgres';
  /**
   * Appended to the SELECT that picks the next due row of a durable queue (jobs, report jobs,
   * webhook deliveries): with several replicas, rows another one is claiming are skipped, not
   * waited for. DuckDB has one writer, so nothing to skip.
   */
  readonly skipLocked: string;
  /** The engine renders a row's JSON text itself (`to_json(struct_pack(...))`) with the bytes JavaScript writes. */
  readonly rendersRowJson: boolean;
  /** Reports and exports run here (PostgreSQL holds no facts until they move to ClickHouse, issue 38). */
  readonly servesReports: boolean;
}

export const DUCKDB_DIALECT: StoreDialect = {
  engine: 'duckdb',
  skipLocked: '',
  rendersRowJson: true,
  servesReports: true,
};
