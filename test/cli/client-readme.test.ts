import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fetchAll, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';
import { tempDir } from '../helpers/server.js';

/**
 * README's ten-line client example, taken from README as it is, type-checked against the built
 * package (`adreport/client` resolves to dist/ through package.json `exports`) and run with Node
 * against a real service with generated statistics.
 */
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MARKER = '<!-- readme-example: client';

let fx: ReportingFixture;
let dir: string;
beforeAll(async () => {
  fx = await startReportingFixture({ world: 'mixed-currencies-30d' });
  dir = tempDir('adreport-readme-');
});
afterAll(async () => {
  await fx.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function readmeExample(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const after = readme.slice(readme.indexOf(MARKER));
  const block = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  if (readme.indexOf(MARKER) < 0 || block === undefined) throw new Error(`README has no ts block after ${MARKER}`);
  return block;
}

it('README client example: ten lines that type-check and print the report', async () => {
  const built = path.join(ROOT, 'dist', 'client', 'index.js');
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  const example = readmeExample();
  expect(example.trim().split('\n').length).toBeLessThanOrEqual(10);

  // Inside the package, so that `adreport/client` resolves as a self-reference through `exports`.
  const scratch = fs.mkdtempSync(path.join(ROOT, 'scratch-readme-'));
  try {
    const file = path.join(scratch, 'example.mts');
    fs.writeFileSync(file, example);
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext'];
    await run(process.execPath, [tsc, ...flags, '--types', 'node', file], { cwd: ROOT }).catch(
      (e: { stdout: string }) => {
        throw new Error(`the README example does not type-check:\n${e.stdout}`);
      },
    );

    const ca = path.join(dir, 'cert.pem');
    fs.writeFileSync(ca, fx.service.tls!.cert);
    const org = fx.orgs[0]!;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', file, fx.service.url, org.clientId, org.clientSecret],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca } },
    );

    const query = { dateRange: 'LAST_7_DAYS' };
    const all = await fetchAll(fx, 'campaigns', org.token, query, 'campaigns');
    expect(all.total).toBeGreaterThan(0); // (paging over many pages: test/service/client.test.ts)
    const lines = stdout.trimEnd().split('\n');
    expect(lines.slice(-all.total)).toEqual(all.rows.map((row: { name: string }) => row.name));
    const head = lines.slice(0, -all.total).join('\n');
    const week = await fx.report('campaigns', org.token, {
      ...query,
      statistics: 'clicks,cost',
      currency: 'EUR',
      totals: 'true',
    });
    const { clicks, cost } = week.json.totals;
    // The world's organization has accounts in several currencies, as the demo does: a cost total needs currency=.
    expect(typeof cost).toBe('number');
    const firstPage = Math.min(100, Number(week.headers['x-totalcount']));
    expect(head).toBe(`${clicks} ${cost} ${firstPage}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}, 300_000);
