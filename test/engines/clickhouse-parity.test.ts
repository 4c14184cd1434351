import { defineParitySuite, KNOWN_DIFFERENCES } from '../helpers/parity-suite.js';

/**
 * Engine parity with aggregate tables on (issue 22 item 5): the corpus of test/helpers/parity-corpus.ts
 * against a DuckDB and a ClickHouse service over copies of one generated database.
 */
defineParitySuite({
  seed: 5,
  rollups: true,
  missingSourceCurrency: 'USD',
  knownDifferences: KNOWN_DIFFERENCES,
});
