/**
 * Where the service's own SQL differs between its two stores (DESIGN D12). Statements are written
 * once, in the SQL both engines accept where there is one; each engine's differences live in one
 * place: `DUCKDB_DIALECT` here, `postgres/postgres-dialect.ts` for PostgreSQL.
 */
export interface StoreDialect {
  readonly engine: 'duckdb' | 'postgres';
  /** The engine renders a row's JSON text itself (`to_json(struct_pack(...))`) with the bytes JavaScript writes. */
  readonly rendersRowJson: boolean;
  /** Reports and exports run here (PostgreSQL holds no facts until they move to ClickHouse, issue 38). */
  readonly servesReports: boolean;
}

export const DUCKDB_DIALECT: StoreDialect = {
  engine: 'duckdb',
  rendersRowJson: true,
  servesReports: true,
};
