import { embeddedDeployment, KNOWN_DIFFERENCES, runParitySuite } from '../helpers/parity-suite.js';

/**
 * Engine parity with aggregate tables on (issue 22 item 5): the corpus of test/helpers/parity-corpus.ts
 * against a DuckDB and a ClickHouse service over copies of the world scale2-60d (the other parity file's too).
 * The file with them off asks only what they change; the rest of its corpus is answered here.
 */
runParitySuite(embeddedDeployment('clickhouse'), {
  rollups: true,
  missingSourceCurrency: 'CHF',
  knownDifferences: KNOWN_DIFFERENCES,
});
