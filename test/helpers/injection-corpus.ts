/**
 * The injection corpus: hostile texts and syntax shared by the HTTP test
 * (test/service/reporting-injection.test.ts) and the compiler's golden test (test/service/golden-sql.test.ts).
 */

/** Text that must stay text: quotes, comments, escapes, control characters, Unicode, length, prototype names. */
export const TEXTS: readonly string[] = [
  "'",
  '"',
  '--',
  '/* */',
  ';',
  "' OR 1=1 --",
  "x' OR '1'='1",
  "') UNION SELECT id, name FROM accounts --",
  "'; DROP TABLE accounts; --",
  '" OR ""="',
  '\\',
  "\\'",
  "a\\' OR 1=1 --",
  '\0',
  "\0' OR 1=1 --",
  '\u0001\u0002\u001b[31m\u007f',
  '\r\n\t',
  '\u202e\u05e9\u05dc\u05d5\u05dd \u0627\u0644\u0633\u0644\u0627\u0645',
  '😀🎉👩‍👩‍👧 emoji',
  '\ufeff\u200b\u00a0',
  'A'.repeat(10_000),
  "x'".repeat(5_000),
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '%',
  '_',
  '*',
  '$1',
  'null',
  'DESKTOP',
];

/** Syntax and numbers: huge, non-finite, out of every integer range, deeply nested, prototype paths. */
export const SYNTAX: readonly string[] = [
  '1e400',
  '-1e400',
  '99999999999999999999',
  '1e308',
  '1.7976931348623157e308',
  '4e9',
  '-2147483649',
  '0x7fffffffffffffff',
  'NaN',
  'Infinity',
  `${'('.repeat(1000)}1${')'.repeat(1000)}`,
  `${'('.repeat(1000)}statistics.clicks > 1${')'.repeat(1000)}`,
  `${'!'.repeat(1000)}(statistics.clicks > 1)`,
  `statistics.clicks > ${'-'.repeat(1000)}1`,
  Array.from({ length: 1000 }, () => 'statistics.clicks > 1').join(' || '),
  '__proto__.polluted',
  'statistics.__proto__',
  'labels.__proto__',
  'labels.constructor',
  'formulas.constructor',
  'customFields.__proto__',
  'segments.__proto__',
  '${1}',
  '?',
  'name == name',
  'id > 0 || 1 == 1',
  "contains(name, '')",
  'statistics.clicks',
];

export const CORPUS: readonly string[] = [...TEXTS, ...SYNTAX];

/** A string literal for the expression grammar: backslash and quote escaped. */
export const literal = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
