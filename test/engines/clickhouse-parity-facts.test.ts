import { embeddedDeployment, KNOWN_DIFFERENCES, runParitySuite } from '../helpers/parity-suite.js';

/**
 * Engine parity with aggregate tables off (issue 22 item 5): every report reads the facts. Of the
 * corpus of test/helpers/parity-corpus.ts, the requests that read an aggregate table when they are
 * on (helpers/parity-rollups.ts), against a DuckDB and a ClickHouse service over copies of the
 * world scale2-60d; the others run the same statements on the same data as in
 * clickhouse-parity.test.ts, which asks them (a test here checks that, statement for statement).
 */
runParitySuite(embeddedDeployment('clickhouse'), {
  rollups: false,
  missingSourceCurrency: 'CHF',
  knownDifferences: KNOWN_DIFFERENCES,
  onlyWhatRollupsChange: true,
});
