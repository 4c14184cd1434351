/**
 * The explorer's speed as a user sees it (issue 25), in headless Chromium against a real service
 * on a generated database (scale 1, 30 days): per round a fresh browser context (empty cache) that
 * opens /explorer until the sign-in form has the focus, signs in until the report's table is shown,
 * then adds the Day segment until the new table and chart are shown. Medians and the bytes that
 * crossed the wire (what the first view's script weighed: decoded and transferred).
 *
 *   node --import tsx bench/explorer-load.ts [rounds=15]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceConfigSchema } from '../src/config/config.js';
import { startService } from '../src/main.js';
import { generateDatabase } from '../test/helpers/generate.js';
import { launchChromium } from '../test/helpers/browser.js';

const rounds = Number(process.argv[2] ?? 15);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-explorer-bench-'));
const dbPath = path.join(dir, 'adreport.duckdb');
const [org] = await generateDatabase(dbPath, { scale: '1', days: 30, seed: 37, orgs: 1 });
const service = await startService(
  serviceConfigSchema.parse({
    dbPath,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
  }),
  { logError: (entry) => console.error(entry.error) },
);
const chrome = await launchChromium();
const times = { blank: [] as number[], firstView: [] as number[], signedIn: [] as number[], segmented: [] as number[] };
let scripts: Array<{ name: string; decoded: number; transferred: number }> = [];
try {
  for (let round = 0; round < rounds; round++) {
    const context = await chrome.browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1360, height: 900 },
    });
    const page = await context.newPage();
    // The floor: the same browser fetching a tiny JSON answer from the service (connection, TLS, one request).
    let t = performance.now();
    await page.goto(`${service.url}/health`);
    times.blank.push(performance.now() - t);
    t = performance.now();
    await page.goto(`${service.url}/explorer#endpoint=campaigns&dateRange=LAST_30_DAYS`);
    await page.waitForSelector('#client-id:focus');
    times.firstView.push(performance.now() - t);
    scripts = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map(
          (e) => e as unknown as { name: string; initiatorType: string; decodedBodySize: number; transferSize: number },
        )
        .filter((e) => e.initiatorType === 'script')
        .map((e) => ({ name: e.name, decoded: e.decodedBodySize, transferred: e.transferSize })),
    );
    await page.fill('#client-id', org!.clientId);
    await page.fill('#client-secret', org!.clientSecret);
    t = performance.now();
    await page.press('#client-secret', 'Enter');
    await page.waitForSelector('#results[aria-busy="false"] #report-table');
    times.signedIn.push(performance.now() - t);
    await page.check('#segment-Day');
    t = performance.now();
    await page.click('#run');
    await page.waitForSelector('#results[aria-busy="false"] #chart canvas');
    times.segmented.push(performance.now() - t);
    await context.close();
  }
} finally {
  await chrome.close();
  await service.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!.toFixed(0);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`explorer, ${rounds} rounds, medians (fresh context each round: nothing cached)`);
console.log(`  GET /health in the same browser     ${median(times.blank)} ms (the floor: TLS, one request)`);
console.log(`  first view (sign-in form focused)   ${median(times.firstView)} ms`);
console.log(`  sign in to the first table          ${median(times.signedIn)} ms (token, /fields, the report page)`);
console.log(`  segment Day: new table and chart    ${median(times.segmented)} ms`);
for (const s of scripts)
  console.log(`  script ${new URL(s.name).pathname}: ${kb(s.decoded)} decoded, ${kb(s.transferred)} transferred`);
