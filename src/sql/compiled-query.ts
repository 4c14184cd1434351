import type { SqlValue } from './sql-value.js';

/** One statement to run: its SQL, the values bound to its placeholders in order, its output columns. */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly SqlValue[];
  readonly columns: readonly string[];
}

/** The formats a report can be exported in (DESIGN D3: the engine renders them). */
export type ExportFormat = 'csv' | 'ndjson' | 'parquet';
