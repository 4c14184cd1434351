/**
 * The functions a statement over the model may call, by PostgreSQL name, and how DuckDB spells
 * each. A name not here is 42883 (undefined_function): reading files, settings or other schemas
 * is not a function a statement can reach.
 */

export interface FunctionSpelling {
  /** DuckDB's name of the function. */
  readonly duckdb: string;
  readonly kind: 'scalar' | 'aggregate' | 'window';
  /** Argument count bounds. */
  readonly args: readonly [min: number, max: number];
}

const f = (duckdb: string, kind: FunctionSpelling['kind'], min: number, max = min): FunctionSpelling => ({
  duckdb,
  kind,
  args: [min, max],
});

export const FUNCTIONS: ReadonlyMap<string, FunctionSpelling> = new Map([
  // Aggregates.
  ['sum', f('sum', 'aggregate', 1)],
  ['count', f('count', 'aggregate', 0, 1)],
  ['avg', f('avg', 'aggregate', 1)],
  ['min', f('min', 'aggregate', 1)],
  ['max', f('max', 'aggregate', 1)],
  ['stddev', f('stddev_samp', 'aggregate', 1)],
  ['stddev_samp', f('stddev_samp', 'aggregate', 1)],
  ['stddev_pop', f('stddev_pop', 'aggregate', 1)],
  ['variance', f('var_samp', 'aggregate', 1)],
  ['var_samp', f('var_samp', 'aggregate', 1)],
  ['var_pop', f('var_pop', 'aggregate', 1)],
  ['bool_and', f('bool_and', 'aggregate', 1)],
  ['bool_or', f('bool_or', 'aggregate', 1)],
  ['every', f('bool_and', 'aggregate', 1)],
  ['string_agg', f('string_agg', 'aggregate', 2)],
  // Window functions.
  ['row_number', f('row_number', 'window', 0)],
  ['rank', f('rank', 'window', 0)],
  ['dense_rank', f('dense_rank', 'window', 0)],
  ['percent_rank', f('percent_rank', 'window', 0)],
  ['cume_dist', f('cume_dist', 'window', 0)],
  ['ntile', f('ntile', 'window', 1)],
  ['lag', f('lag', 'window', 1, 3)],
  ['lead', f('lead', 'window', 1, 3)],
  ['first_value', f('first_value', 'window', 1)],
  ['last_value', f('last_value', 'window', 1)],
  ['nth_value', f('nth_value', 'window', 2)],
  // Numbers.
  ['abs', f('abs', 'scalar', 1)],
  ['round', f('round', 'scalar', 1, 2)],
  ['ceil', f('ceil', 'scalar', 1)],
  ['ceiling', f('ceil', 'scalar', 1)],
  ['floor', f('floor', 'scalar', 1)],
  ['trunc', f('trunc', 'scalar', 1)],
  ['sqrt', f('sqrt', 'scalar', 1)],
  ['power', f('power', 'scalar', 2)],
  ['pow', f('power', 'scalar', 2)],
  ['ln', f('ln', 'scalar', 1)],
  ['log', f('log10', 'scalar', 1)],
  ['log10', f('log10', 'scalar', 1)],
  ['exp', f('exp', 'scalar', 1)],
  ['sign', f('sign', 'scalar', 1)],
  ['mod', f('mod', 'scalar', 2)],
  // Text.
  ['lower', f('lower', 'scalar', 1)],
  ['upper', f('upper', 'scalar', 1)],
  ['length', f('length', 'scalar', 1)],
  ['char_length', f('length', 'scalar', 1)],
  ['character_length', f('length', 'scalar', 1)],
  ['substr', f('substr', 'scalar', 2, 3)],
  ['substring', f('substring', 'scalar', 2, 3)],
  ['btrim', f('trim', 'scalar', 1, 2)],
  ['ltrim', f('ltrim', 'scalar', 1, 2)],
  ['rtrim', f('rtrim', 'scalar', 1, 2)],
  ['replace', f('replace', 'scalar', 3)],
  ['concat', f('concat', 'scalar', 1, 100)],
  ['concat_ws', f('concat_ws', 'scalar', 2, 100)],
  ['left', f('left', 'scalar', 2)],
  ['right', f('right', 'scalar', 2)],
  ['strpos', f('strpos', 'scalar', 2)],
  ['position', f('strpos', 'scalar', 2)],
  ['split_part', f('split_part', 'scalar', 3)],
  ['starts_with', f('starts_with', 'scalar', 2)],
  ['md5', f('md5', 'scalar', 1)],
  // Dates.
  ['date_trunc', f('date_trunc', 'scalar', 2)],
  ['date_part', f('date_part', 'scalar', 2)],
  ['extract', f('date_part', 'scalar', 2)],
  ['make_date', f('make_date', 'scalar', 3)],
  ['now', f('now', 'scalar', 0)],
  // Conditionals with a function spelling.
  ['nullif', f('nullif', 'scalar', 2)],
  ['coalesce', f('coalesce', 'scalar', 1, 100)],
  ['greatest', f('greatest', 'scalar', 1, 100)],
  ['least', f('least', 'scalar', 1, 100)],
]);

/** Parts date_trunc, date_part and extract take: spelled by us, never passed through. */
export const DATE_PARTS: ReadonlySet<string> = new Set([
  'microseconds',
  'milliseconds',
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
  'decade',
  'century',
  'millennium',
  'dow',
  'isodow',
  'doy',
  'epoch',
  'isoyear',
]);

/** Set-returning functions allowed in FROM. */
export const TABLE_FUNCTIONS: ReadonlySet<string> = new Set(['generate_series']);
