import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Issue 19, item 10: the served document passes Redocly's linter (a tool nobody here wrote) with
 * the committed redocly.yaml: no error, and no warning but those README "Using the API" keeps on
 * purpose. The linter runs offline: no telemetry, no update check.
 */
const KEPT_WARNINGS = ['info-license', 'info-contact', 'tags-alphabetical'];
const REDOCLY = path.resolve('node_modules/@redocly/cli/bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('redocly lint of GET /openapi.json', () => {
  it('finds no error and only the warnings kept on purpose', async () => {
    const file = path.join(server.dir, 'openapi.json');
    fs.writeFileSync(file, (await server.http.get('/openapi.json')).text);
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const run = await promisify(execFile)(
      process.execPath,
      [REDOCLY, 'lint', file, '--config', 'redocly.yaml', '--format=json', '--max-problems=1000'],
      { env, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }));
    const report = JSON.parse(run.stdout) as LintReport;
    const shown = report.problems
      .map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
      .join('\n');
    console.log(
      `redocly lint: ${report.totals.errors} errors, ${report.totals.warnings} warnings (${[...new Set(report.problems.map((p) => p.ruleId))].join(', ')})`,
    );
    expect(report.totals.errors, shown).toBe(0);
    expect(
      report.problems.filter((p) => !KEPT_WARNINGS.includes(p.ruleId)).map((p) => p.ruleId),
      shown,
    ).toEqual([]);
  }, 300_000);
});
