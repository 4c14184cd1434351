import { defineParitySuite } from './helpers/parity-suite.js';

/**
 * Engine parity with aggregate tables on (issue 22 item 5): the corpus of test/helpers/parity-corpus.ts
 * against a DuckDB and a ClickHouse service over copies of one generated database.
 */
defineParitySuite({
  seed: 5,
  rollups: true,
  // Requests known to answer differently on ClickHouse, with the cause; the test fails when one is fixed
  // (take it off) and on every difference not listed.
  knownDifferences: [],
});
