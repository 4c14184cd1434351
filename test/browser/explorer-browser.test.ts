import fs from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import {
  startReportingFixture,
  type GeneratedOrg,
  type QueryInput,
  type ReportingFixture,
} from '../helpers/reporting-fixture.js';

/**
 * The explorer in headless Chromium (Debian's, driven by playwright-core) against a real service
 * on a generated database: sign in, run a report, page and sort it, change a segment, see the
 * chart, download a CSV, see a filter error in place, reload a shared view. Each step's table and
 * numbers are checked against what the API answers to the same query over plain HTTPS; each step
 * leaves a screenshot under test/artifacts/explorer/.
 */
const ARTIFACTS = path.resolve(import.meta.dirname, '..', 'artifacts', 'explorer');
const numbers = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

let fx: ReportingFixture;
let org: GeneratedOrg;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
const requested: string[] = [];
const policyViolations: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  chrome = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fx = await startReportingFixture({ world: 'mixed-currencies-30d' });
  org = fx.orgs[0]!;
  context = await chrome.browser.newContext({
    ignoreHTTPSErrors: true,
    acceptDownloads: true,
    viewport: { width: 1360, height: 900 },
  });
  page = await context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(String(error)));
}, 480_000);

afterAll(async () => {
  await context?.close();
  await chrome?.close();
  await fx?.close();
});

// page.evaluate callbacks run in the page and reach its globals through globalThis, untyped: this
// file is checked with Node's types, not the DOM's (the DOM's in the program would let server code
// use `document` unnoticed).
const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Waits for the report the page is running to be shown (or refused). */
async function settled(): Promise<void> {
  await page.waitForSelector('#results[aria-busy="false"]');
}

/**
 * Does `action` and waits for the report it runs: its answer, then the page showing it. Waiting
 * for `aria-busy="false"` alone passed at once on a busy machine, before the click's run had
 * begun, and read the previous table.
 */
async function settledAfter(action: () => Promise<unknown>): Promise<void> {
  const answered = page.waitForResponse((response) => {
    const pathname = new URL(response.url()).pathname;
    return pathname.startsWith('/reporting/v0/') && !pathname.endsWith('/fields');
  });
  await action();
  await answered;
  await settled();
}

/** The table's cells, row by row, and its header labels. */
async function table() {
  return page.evaluate(() => {
    const t = (globalThis as any).document.querySelector('#report-table');
    if (!t) return { headers: [] as string[], rows: [] as string[][], totals: [] as string[] };
    const text = (cells: ArrayLike<{ textContent: string | null }>) =>
      [...Array.from(cells)].map((c) => c.textContent ?? '');
    return {
      headers: text(t.tHead!.rows[0]!.cells),
      rows: [...Array.from(t.tBodies[0].rows as ArrayLike<any>)].map((r) => text(r.cells)),
      totals: t.tFoot ? text(t.tFoot.rows[0]!.cells) : [],
    };
  });
}

function column(view: Awaited<ReturnType<typeof table>>, header: string): string[] {
  const index = view.headers.findIndex((h) => h.replace(/ [▲▼]$/, '') === header);
  expect(index, `column ${header} in ${view.headers.join(', ')}`).toBeGreaterThanOrEqual(0);
  return view.rows.map((row) => row[index]!);
}

async function api(query: QueryInput) {
  const res = await fx.report('campaigns', org.token, query);
  expect(res.status, res.text).toBe(200);
  return { body: res.json, total: Number(res.headers['x-totalcount']) };
}

/** axe-core's findings on the page as it is (WCAG 2.1 A and AA, best practices): contrast, labels, roles. */
async function axeViolations(): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: typeof axe }).axe.run((globalThis as any).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  );
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
}

async function signIn(secret = org.clientSecret): Promise<void> {
  await page.focus('#client-id');
  await page.keyboard.press('Control+A');
  await page.keyboard.type(org.clientId);
  await page.keyboard.press('Tab');
  await page.keyboard.type(secret);
  await page.keyboard.press('Enter');
}

describe('the explorer in Chromium', () => {
  it('opens on the sign-in form, with the focus in it, after under 200 KB of script', async () => {
    await page.goto(`${fx.service.url}/explorer#endpoint=campaigns&dateRange=LAST_30_DAYS&limit=25`);
    await page.waitForSelector('#client-id:focus');
    expect(await page.isVisible('#explorer')).toBe(false);
    await shot('01-sign-in');
    const scripts = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e as unknown as { name: string; initiatorType: string; decodedBodySize: number })
        .filter((e) => e.initiatorType === 'script')
        .map((e) => ({ name: e.name, bytes: e.decodedBodySize })),
    );
    expect(scripts.map((s) => new URL(s.name).pathname)).toEqual(['/explorer/explorer.js']);
    expect(scripts[0]!.bytes).toBeGreaterThan(10_000);
    expect(scripts[0]!.bytes).toBeLessThan(200 * 1024);
    expect(await axeViolations()).toEqual([]);
  });

  it('says a wrong secret in the form, and stays on it', async () => {
    await signIn('not-the-secret');
    await page.waitForSelector('#sign-in-error:not(:empty)');
    expect(await page.textContent('#sign-in-error')).toBe('The client id or secret is wrong.');
    expect(await page.getAttribute('#client-secret', 'aria-invalid')).toBe('true');
    expect(await page.isVisible('#explorer')).toBe(false);
    await page.fill('#client-secret', '');
  });

  it('signs in by keyboard and shows the report of the URL: the rows, count and totals the API gives', async () => {
    await settledAfter(() => signIn());
    await page.waitForSelector('#explorer:not([hidden])');
    await shot('02-report');
    const { body, total } = await api({ dateRange: 'LAST_30_DAYS', limit: 25, offset: 0, totals: 'true' });
    const view = await table();
    expect(column(view, 'Id')).toEqual(body.campaigns.map((c: { id: number }) => String(c.id)));
    expect(column(view, 'Name')).toEqual(body.campaigns.map((c: { name: string }) => c.name));
    expect(column(view, 'clicks')).toEqual(body.campaigns.map((c: any) => numbers.format(c.statistics.clicks)));
    expect(total).toBeGreaterThan(25);
    expect(await page.textContent('#status')).toContain(`${numbers.format(total)} rows`);
    const clicksAt = view.headers.indexOf('clicks');
    expect(view.totals[0]).toContain(`Totals of all ${numbers.format(total)} rows`);
    // The totals row's label spans the columns before the first statistic.
    expect(view.totals[clicksAt - (view.headers.indexOf('impressions') - 1)]).toBe(numbers.format(body.totals.clicks));
  });

  it('keeps the token in memory only: no storage, no cookie, no secret in the address', async () => {
    const kept = await page.evaluate(() => ({
      local: (globalThis as any).localStorage.length,
      session: (globalThis as any).sessionStorage.length,
      cookie: (globalThis as any).document.cookie,
      secretField: (globalThis as any).document.querySelector('#client-secret').value,
    }));
    expect(kept).toEqual({ local: 0, session: 0, cookie: '', secretField: '' });
    expect(page.url()).not.toContain(org.clientSecret);
    expect((await context.cookies()).length).toBe(0);
  });

  it('pages with X-TotalCount, and sorts by a column header', async () => {
    await settledAfter(() => page.click('#next-page'));
    const { body, total } = await api({ dateRange: 'LAST_30_DAYS', limit: 25, offset: 25, totals: 'true' });
    expect(column(await table(), 'Id')).toEqual(body.campaigns.map((c: { id: number }) => String(c.id)));
    expect(await page.textContent('#page-status')).toBe(`Rows 26–${Math.min(50, total)} of ${numbers.format(total)}`);
    expect(page.url()).toContain('offset=25');

    await settledAfter(() => page.click('#report-table thead button:text-is("clicks")'));
    const sorted = await api({ dateRange: 'LAST_30_DAYS', limit: 25, sort: '-statistics.clicks', totals: 'true' });
    const view = await table();
    expect(column(view, 'Id')).toEqual(sorted.body.campaigns.map((c: { id: number }) => String(c.id)));
    expect(await page.getAttribute('#report-table th[aria-sort]', 'aria-sort')).toBe('descending');
    expect(page.url()).toContain('sort=-statistics.clicks');
    expect(page.url()).not.toContain('offset=');
  });

  it('converts every row into the currency asked for: the mixed-currency warning goes, totals get their money', async () => {
    expect(await page.isVisible('#report-error [data-code="mixed_currencies"]')).toBe(true);
    await page.fill('#currency', 'eur');
    await settledAfter(() => page.click('#run'));
    const { body, total } = await api({
      dateRange: 'LAST_30_DAYS',
      currency: 'EUR',
      limit: 25,
      sort: '-statistics.clicks',
      totals: 'true',
    });
    const view = await table();
    const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(column(view, 'cost')).toEqual(body.campaigns.map((c: any) => money.format(c.statistics.cost)));
    expect(new Set(column(view, 'Currency'))).toEqual(new Set(['EUR']));
    expect(view.totals[0]).toBe(`Totals of all ${numbers.format(total)} rows (EUR)`);
    expect(await page.isVisible('#report-error [data-code="mixed_currencies"]')).toBe(false);
    expect(page.url()).toContain('currency=EUR');
    await page.fill('#currency', '');
  });

  it('draws a time segment as a line over the segment totals', async () => {
    await page.check('#segment-Day');
    await settledAfter(() => page.click('#run'));
    await page.waitForSelector('#chart canvas');
    await shot('03-segment-day-line');
    const { body } = await api({
      dateRange: 'LAST_30_DAYS',
      segments: 'Day',
      limit: 25,
      sort: '-statistics.clicks',
      totals: 'segments',
    });
    const view = await table();
    expect(view.headers[0]).toBe('Day');
    expect(column(view, 'Day')).toEqual(body.campaigns.map((c: any) => c.segments.day));
    const label = await page.getAttribute('#chart', 'aria-label');
    expect(label).toBe(`Line chart: impressions by Day, ${body.segmentTotals.length} points per line, 1 line.`);
    expect(page.url()).toContain('segments=Day');
  });

  it('draws another segment as bars, and charts the statistic chosen', async () => {
    await page.uncheck('#segment-Day');
    await page.check('#segment-DeviceType');
    await settledAfter(() => page.click('#run'));
    // Money over rows in two currencies sums to null: the chart says so instead of drawing nothing.
    await page.selectOption('#chart-measure', 'statistics.cost');
    expect(await page.getAttribute('#chart', 'aria-label')).toContain('several currencies');
    await page.selectOption('#chart-measure', 'statistics.clicks');
    await page.waitForSelector('#chart canvas');
    await shot('04-segment-device-bars');
    const { body } = await api({ dateRange: 'LAST_30_DAYS', segments: 'DeviceType', limit: 1, totals: 'segments' });
    const devices = body.segmentTotals.length;
    expect(devices).toBeGreaterThan(1);
    expect(body.segmentTotals.every((b: { cost: unknown }) => b.cost === null)).toBe(true);
    expect(await page.getAttribute('#chart', 'aria-label')).toBe(`Bar chart: clicks by DeviceType, ${devices} bars.`);
    expect(page.url()).toContain('chart=statistics.clicks');
  });

  it('reloads a shared view: after signing in again, the same report', async () => {
    const before = await table();
    const url = page.url();
    await page.reload();
    await page.waitForSelector('#client-id:focus');
    expect(await page.isVisible('#explorer')).toBe(false);
    await settledAfter(() => signIn());
    expect(page.url()).toBe(url);
    expect(await page.isChecked('#segment-DeviceType')).toBe(true);
    expect(await page.inputValue('#chart-measure')).toBe('statistics.clicks');
    expect(await table()).toEqual(before);
  });

  it('downloads the whole report as CSV: the bytes of the API export of the same query', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#downloads button[data-format="csv"]'),
    ]);
    await page.waitForSelector('#download-status:has-text("saved")');
    await shot('05-download-csv');
    const saved = fs.readFileSync((await download.path())!, 'utf8');
    const exported = await fx.report('campaigns', org.token, {
      dateRange: 'LAST_30_DAYS',
      segments: 'DeviceType',
      sort: '-statistics.clicks',
      format: 'csv',
    });
    expect(exported.status).toBe(200);
    expect(saved).toBe(exported.text);
    expect(download.suggestedFilename()).toBe(
      /filename="([^"]+)"/.exec(String(exported.headers['content-disposition']))![1],
    );
    expect(saved.split('\n')[0]).toContain('segments.deviceType');
  });

  it('downloads NDJSON and Parquet too, each the bytes of the API export', async () => {
    const dispatcher = new Agent({ connect: { ca: fx.service.tls?.cert, servername: 'localhost' } });
    try {
      for (const format of ['ndjson', 'parquet']) {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.click(`#downloads button[data-format="${format}"]`),
        ]);
        await page.waitForSelector(`#download-status:has-text(".${format}:")`);
        const query = new URLSearchParams({
          dateRange: 'LAST_30_DAYS',
          segments: 'DeviceType',
          sort: '-statistics.clicks',
          format,
        });
        const res = await request(`${fx.service.url}/reporting/v0/campaigns?${query}`, {
          headers: { authorization: `Bearer ${org.token}` },
          dispatcher,
        });
        expect(res.statusCode).toBe(200);
        const exported = Buffer.from(await res.body.arrayBuffer());
        expect(exported.length, format).toBeGreaterThan(100);
        expect(fs.readFileSync((await download.path())!).equals(exported), format).toBe(true);
        expect(download.suggestedFilename().endsWith(`.${format}`)).toBe(true);
      }
    } finally {
      await dispatcher.close();
    }
  });

  it("shows a filter error under the filter, with the service's message and the fault marked", async () => {
    const filter = "name != 'x' && statistics.clicsk > 3";
    await page.fill('#filter', filter);
    await settledAfter(() => page.click('#run'));
    await shot('06-filter-error');
    const refused = await fx.report('campaigns', org.token, { dateRange: 'LAST_30_DAYS', filter });
    expect(refused.status).toBe(400);
    const detail = refused.json.error.details[0];
    expect(await page.textContent('#filter-error span')).toBe(detail.message);
    expect(await page.textContent('#filter-error mark')).toBe('statistics.clicsk');
    expect(await page.getAttribute('#filter', 'aria-invalid')).toBe('true');
    const caret = await page.evaluate(() => {
      const input = (globalThis as any).document.querySelector('#filter');
      return {
        focused: (globalThis as any).document.activeElement === input,
        start: input.selectionStart,
        end: input.selectionEnd,
      };
    });
    expect(caret).toEqual({
      focused: true,
      start: filter.indexOf('statistics.clicsk'),
      end: filter.indexOf('statistics.clicsk') + 'statistics.clicsk'.length,
    });
    // Nothing of the report before it stays on screen beside the error.
    expect(await page.isVisible('#downloads')).toBe(false);
    expect(await page.isVisible('#chart-panel')).toBe(false);
    expect(await page.$('#report-table')).toBeNull();
  });

  it('marks a formula error on the line it is on', async () => {
    await page.fill('#filter', '');
    const formulas = 'clicks2:statistics.clicks * 2:Integer\n  cpx:statistics.cost / statistics.nope:Money';
    await page.fill('#formulas', formulas);
    await settledAfter(() => page.click('#run'));
    expect(await page.textContent('#formulas-error mark')).toBe('statistics.nope');
    expect(await page.getAttribute('#filter', 'aria-invalid')).toBeNull();
    const start = await page.evaluate(() => (globalThis as any).document.querySelector('#formulas').selectionStart);
    expect(start).toBe(formulas.indexOf('statistics.nope'));

    await page.fill('#formulas', 'clicks2:statistics.clicks * 2:Integer');
    await settledAfter(() => page.click('#run'));
    expect(await page.textContent('#formulas-error')).toBe('');
    expect((await table()).headers).toContain('clicks2');
    // The chart still draws what was picked before these runs from the form.
    expect(await page.inputValue('#chart-measure')).toBe('statistics.clicks');
  });

  it('charts a formula from its segment totals; a money sort over several currencies shows its warning', async () => {
    await page.selectOption('#chart-measure', 'formulas.clicks2');
    await page.waitForSelector('#chart canvas');
    const { body } = await api({
      dateRange: 'LAST_30_DAYS',
      segments: 'DeviceType',
      formulas: 'clicks2:statistics.clicks * 2:Integer',
      limit: 1,
      totals: 'segments',
    });
    // The formula over each bucket's sums, recomputed here from the bucket's clicks.
    for (const bucket of body.segmentTotals) expect(bucket.formulas.clicks2).toBe(bucket.clicks * 2);
    expect(await page.getAttribute('#chart', 'aria-label')).toBe(
      `Bar chart: clicks2 by DeviceType, ${body.segmentTotals.length} bars.`,
    );
    await page.selectOption('#chart-measure', 'statistics.clicks');

    expect(await page.isVisible('#report-error [data-code="mixed_currency_sort"]')).toBe(false);
    await settledAfter(() => page.click('#report-table thead button:text-is("cost")'));
    expect(await page.isVisible('#report-error [data-code="mixed_currency_sort"]')).toBe(true);
    expect(await page.textContent('#report-error [data-code="mixed_currency_sort"]')).toContain('statistics.cost');
    await settledAfter(() => page.click('#report-table thead button:text-is("clicks")'));
    expect(page.url()).toContain('sort=-statistics.clicks');
    expect(await page.isVisible('#report-error [data-code="mixed_currency_sort"]')).toBe(false);
  });

  it('leads the keyboard from the top of the page to the results, keeping the report in the address', async () => {
    const url = page.url();
    // Backwards from the form's first control: the header's Sign out, then the skip link.
    await page.focus('#endpoint');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('sign-out');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('skip-link');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('results');
    expect(page.url()).toBe(url);
  });

  it('passes the axe-core accessibility rules (WCAG 2.1 A and AA, best practices) on the report', async () => {
    await page.fill('#filter', 'statistics.clicks > 0');
    await settledAfter(() => page.click('#run'));
    expect(await axeViolations()).toEqual([]);
  });

  it('fetched nothing from another origin, broke no rule of its policy, threw nothing', async () => {
    const origin = new URL(fx.service.url).origin;
    expect(requested.length).toBeGreaterThan(10);
    const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('blob:'));
    expect(elsewhere).toEqual([]);
    expect(policyViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
