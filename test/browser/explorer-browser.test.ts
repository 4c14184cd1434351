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
/** The campaigns endpoint's statistics as /fields gives them: label and unit (from the type where it gives none). */
const statistics = new Map<string, { label: string; unit: string }>();
const label = (name: string) => statistics.get(name)?.label ?? name;
/** The segments' labels (the name where /fields gives none). */
const segmentLabels = new Map<string, string>();
const segment = (name: string) => segmentLabels.get(name) ?? name;
const policyViolations: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  chrome = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fx = await startReportingFixture({ world: 'mixed-currencies-30d' });
  org = fx.orgs[0]!;
  const fields = await fx.get('/reporting/v0/fields', org.token);
  const campaigns = fields.json.endpoints.find((e: { path: string }) => e.path === '/reporting/v0/campaigns');
  for (const s of campaigns.segments) segmentLabels.set(s.name, s.label ?? s.name);
  for (const s of campaigns.statistics)
    statistics.set(s.name, {
      label: s.label ?? s.name,
      unit: s.unit ?? (s.type === 'Money' ? 'money' : s.type === 'Ratio' ? 'ratio' : 'count'),
    });
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
  const index = headerAt(view, header);
  return view.rows.map((row) => row[index]!);
}

function headerAt(view: Awaited<ReturnType<typeof table>>, header: string): number {
  const index = view.headers.findIndex((h) => h.replace(/ [▲▼]$/, '') === header);
  expect(index, `column ${header} in ${view.headers.join(', ')}`).toBeGreaterThanOrEqual(0);
  return index;
}

/** What the explorer should write for a value of a unit (en-US, as the page formats). */
function formatted(value: number | null, unit: string, currency?: string | null): string {
  if (value === null) return '–';
  switch (unit) {
    case 'money':
      return currency
        ? new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'code' }).format(value)
        : new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
    case 'percent':
      return new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 2 }).format(value);
    case 'ratio':
      return `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 2 }).format(value)}x`;
    default:
      return new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(value);
  }
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
    expect(column(view, label('clicks'))).toEqual(body.campaigns.map((c: any) => numbers.format(c.statistics.clicks)));
    expect(total).toBeGreaterThan(25);
    expect(await page.textContent('#status')).toContain(`${numbers.format(total)} rows`);
    const clicksAt = headerAt(view, label('clicks'));
    expect(view.totals[0]).toContain(`Totals of all ${numbers.format(total)} rows`);
    // The totals row's label spans the columns before the first statistic.
    expect(view.totals[clicksAt - (headerAt(view, label('impressions')) - 1)]).toBe(numbers.format(body.totals.clicks));
  });

  it('writes every statistic by its unit (money in the row currency), the exact value one hover away, labels as headers', async () => {
    const { body } = await api({ dateRange: 'LAST_30_DAYS', limit: 25, offset: 0, totals: 'true' });
    const shown = body.campaigns[0].statistics as Record<string, number | null>;
    const cells = await page.evaluate(() => {
      const t = (globalThis as any).document.querySelector('#report-table');
      const row = t.tBodies[0].rows[0];
      return [...Array.from(t.tHead.rows[0].cells as ArrayLike<any>)].map((th: any, i: number) => ({
        header: (th.textContent as string).replace(/ [▲▼]$/, ''),
        raw: th.getAttribute('title') as string | null,
        text: row.cells[i].textContent as string,
        title: row.cells[i].getAttribute('title') as string | null,
      }));
    });
    let checked = 0;
    for (const [name, value] of Object.entries(shown)) {
      const cell = cells.find((c) => c.raw === `statistics.${name}`);
      expect(cell, name).toBeDefined();
      expect(cell!.header).toBe(label(name));
      const unit = statistics.get(name)!.unit;
      expect(cell!.text, name).toBe(formatted(value, unit, body.campaigns[0].currency));
      expect(cell!.title, name).toBe(value === null ? null : String(value));
      checked++;
    }
    expect(checked).toBeGreaterThan(4);
    // Money carries the row's ISO code; a fraction of a percent statistic reads as percent.
    expect(cells.find((c) => c.raw === 'statistics.cost')!.text).toContain(body.campaigns[0].currency);
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

    await settledAfter(() => page.click(`#report-table thead button:text-is("${label('clicks')}")`));
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
    expect(column(view, label('cost'))).toEqual(
      body.campaigns.map((c: any) => formatted(c.statistics.cost, 'money', 'EUR')),
    );
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
    expect(view.headers[0]).toBe(segment('Day'));
    expect(column(view, segment('Day'))).toEqual(body.campaigns.map((c: any) => c.segments.day));
    const chartLabel = await page.getAttribute('#chart', 'aria-label');
    expect(chartLabel).toBe(
      `Line chart: ${label('impressions')} by ${segment('Day')}, ${body.segmentTotals.length} points per line, 1 line.`,
    );
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
    expect(await page.getAttribute('#chart', 'aria-label')).toBe(
      `Bar chart: ${label('clicks')} by ${segment('DeviceType')}, ${devices} bars.`,
    );
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
    // The last good results stay on screen, marked as the previous report's; the error leads to the field.
    expect(await page.isVisible('#report-table')).toBe(true);
    expect(await page.isVisible('#chart-panel')).toBe(true);
    expect(await page.getAttribute('#table-wrap', 'class')).toContain('stale');
    expect(await page.textContent('#status')).toContain('last report that ran');
    await page.focus('#run');
    await page.click('#report-error button:has-text("Go to filter")');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('filter');
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
      `Bar chart: clicks2 by ${segment('DeviceType')}, ${body.segmentTotals.length} bars.`,
    );
    await page.selectOption('#chart-measure', 'statistics.clicks');

    expect(await page.isVisible('#report-error [data-code="mixed_currency_sort"]')).toBe(false);
    await settledAfter(() => page.click(`#report-table thead button:text-is("${label('cost')}")`));
    expect(await page.isVisible('#report-error [data-code="mixed_currency_sort"]')).toBe(true);
    expect(await page.textContent('#report-error [data-code="mixed_currency_sort"]')).toContain('statistics.cost');
    await settledAfter(() => page.click(`#report-table thead button:text-is("${label('clicks')}")`));
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

  it('compares with the previous period: change columns, the compared values in their titles, the compared line dashed', async () => {
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.fill('#filter', '');
    await page.fill('#formulas', '');
    await page.fill('#currency', 'EUR');
    await page.uncheck('#segment-DeviceType');
    await page.check('#segment-Day');
    // 14 days against the 14 before: both inside the generated 30 days.
    await page.selectOption('#date-range', 'LAST_14_DAYS');
    await page.selectOption('#compare', 'PREVIOUS_PERIOD');
    await settledAfter(() => page.click('#run'));
    expect(page.url()).toContain('compare=PREVIOUS_PERIOD');
    const query = {
      dateRange: 'LAST_14_DAYS',
      segments: 'Day',
      compare: 'PREVIOUS_PERIOD',
      currency: 'EUR',
      limit: 25,
      sort: '-statistics.clicks',
      totals: 'segments',
    };
    const { body } = await api(query);
    const view = await table();
    const change = new Intl.NumberFormat('en-US', {
      style: 'percent',
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
      signDisplay: 'exceptZero',
    });
    expect(column(view, `${label('clicks')} change`)).toEqual(
      body.campaigns.map((c: any) =>
        c.change.statistics.clicks === null ? '–' : change.format(c.change.statistics.clicks),
      ),
    );
    const index = headerAt(view, `${label('cost')} change`);
    const title = await page.evaluate(
      (i) => (globalThis as any).document.querySelector('#report-table').tBodies[0].rows[0].cells[i].title as string,
      index,
    );
    expect(title).toContain(`against ${formatted(body.campaigns[0].comparison.statistics.cost, 'money', 'EUR')}`);
    expect(await page.textContent('#status')).toContain('compared with');
    await page.selectOption('#chart-measure', 'statistics.clicks');
    await page.waitForSelector('#chart canvas');
    expect(await page.getAttribute('#chart', 'aria-label')).toBe(
      `Line chart: ${label('clicks')} by ${segment('Day')}, ${body.segmentTotals.length} points per line, 1 line, the compared range dashed.`,
    );
    await page.evaluate(() => (globalThis as any).document.querySelector('#results').scrollIntoView());
    await page.screenshot({ path: path.join(ARTIFACTS, 'screenshot-compare.png') });
    // The comparison is part of the shared link.
    const hash = new URL(page.url()).hash;
    expect(hash).toContain('compare=PREVIOUS_PERIOD');

    await page.selectOption('#compare', 'custom');
    await page.fill('#compare-start', '2026-01-01');
    await page.fill('#compare-end', '2026-01-14');
    await settledAfter(() => page.click('#run'));
    expect(page.url()).toContain('compare=2026-01-01..2026-01-14');
    expect(await page.textContent('#status')).toContain('compared with 2026-01-01 to 2026-01-14');
  });

  it('draws a breakdown as bars (the compared range dashed beside), stacked over a time segment', async () => {
    await page.selectOption('#compare', 'PREVIOUS_PERIOD');
    await page.uncheck('#segment-Day');
    await page.check('#segment-DeviceType');
    await settledAfter(() => page.click('#run'));
    await page.waitForSelector('#chart canvas');
    const devices = (await api({ dateRange: 'LAST_14_DAYS', segments: 'DeviceType', limit: 1, totals: 'segments' }))
      .body.segmentTotals.length;
    expect(await page.getAttribute('#chart', 'aria-label')).toBe(
      `Bar chart: ${label('clicks')} by ${segment('DeviceType')}, ${devices} bars, the compared range dashed.`,
    );
    await page.evaluate(() => (globalThis as any).document.querySelector('#chart-panel').scrollIntoView());
    await page.screenshot({ path: path.join(ARTIFACTS, 'screenshot-breakdown.png') });

    await page.selectOption('#compare', '');
    await page.check('#segment-Day');
    await settledAfter(() => page.click('#run'));
    await page.waitForSelector('#chart canvas');
    const { body } = await api({ dateRange: 'LAST_14_DAYS', segments: 'Day,DeviceType', limit: 1, totals: 'segments' });
    const days = new Set(body.segmentTotals.map((b: any) => b.segments.day)).size;
    const kinds = new Set(body.segmentTotals.map((b: any) => b.segments.deviceType)).size;
    expect(await page.getAttribute('#chart', 'aria-label')).toBe(
      `Stacked bar chart: ${label('clicks')} by ${segment('Day')} and ${segment('DeviceType')}, ${days} stacks of ${kinds}.`,
    );
    expect(page.url()).not.toContain('compare=');
    await page.screenshot({ path: path.join(ARTIFACTS, 'screenshot-stacked.png') });
  });

  it('drills from an account to its campaigns and ad groups by keyboard, and back by the breadcrumb', async () => {
    await page.uncheck('#segment-Day');
    await page.uncheck('#segment-DeviceType');
    await settledAfter(() =>
      page.evaluate(() => {
        (globalThis as any).location.hash = 'endpoint=accounts&dateRange=LAST_30_DAYS&currency=EUR';
      }),
    );
    const account = await page.$eval('#report-table tbody a.drill', (a: any) => ({
      id: Number(a.closest('tr').cells[1].textContent),
      name: a.textContent as string,
    }));
    await page.focus('#report-table tbody a.drill');
    await settledAfter(() => page.keyboard.press('Enter'));
    const hash = new URLSearchParams(new URL(page.url()).hash.slice(1));
    expect(hash.get('endpoint')).toBe('campaigns');
    expect(hash.get('filter')).toBe(`accountId == ${account.id}`);
    const campaigns = await fx.report('campaigns', org.token, {
      dateRange: 'LAST_30_DAYS',
      currency: 'EUR',
      filter: `accountId == ${account.id}`,
      limit: 100,
    });
    expect(campaigns.status).toBe(200);
    expect(column(await table(), 'Id')).toEqual(campaigns.json.campaigns.map((c: any) => String(c.id)));
    expect(await page.textContent('#breadcrumb')).toContain(`${account.name}: campaigns`);

    await settledAfter(() => page.click('#report-table tbody a.drill'));
    expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('endpoint')).toBe('adgroups');
    expect(await page.$$eval('#breadcrumb li', (items) => items.length)).toBe(3);
    expect(await page.getAttribute('#breadcrumb li:last-child span', 'aria-current')).toBe('page');
    // An ad group opens its keywords, or its ads beside it.
    expect(await page.$$eval('#report-table tbody tr:first-child a.drill', (links) => links.length)).toBe(2);

    await settledAfter(() => page.click(`#breadcrumb a:has-text("${account.name}: campaigns")`));
    expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('filter')).toBe(`accountId == ${account.id}`);
    await settledAfter(() => page.click('#breadcrumb a:has-text("All accounts")'));
    expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('endpoint')).toBe('accounts');
    expect(await page.isVisible('#breadcrumb')).toBe(false);
  });

  it('at 1400 px scrolls the table inside its frame with the first column in view; axe finds nothing', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.check('#segment-Day');
    for (const box of await page.$$('#statistic-choices input')) await box.check();
    await page.selectOption('#compare', 'PREVIOUS_PERIOD');
    await page.selectOption('#endpoint', 'campaigns');
    for (const box of await page.$$('#statistic-choices input')) await box.check();
    await settledAfter(() => page.click('#run'));
    const layout = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const wrap = doc.querySelector('#table-wrap');
      return {
        page: doc.documentElement.scrollWidth,
        wrapRight: wrap.getBoundingClientRect().right,
        scrolls: wrap.scrollWidth > wrap.clientWidth,
      };
    });
    expect(layout.page).toBeLessThanOrEqual(1400);
    expect(layout.wrapRight).toBeLessThanOrEqual(1400);
    expect(layout.scrolls).toBe(true);
    const first = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const wrap = doc.querySelector('#table-wrap');
      const cell = doc.querySelector('#report-table tbody tr th');
      const before = cell.getBoundingClientRect().left;
      wrap.scrollLeft = 600;
      return { before, after: cell.getBoundingClientRect().left, scrolled: wrap.scrollLeft };
    });
    expect(first.scrolled).toBeGreaterThan(0);
    expect(first.after).toBe(first.before);
    expect(await axeViolations()).toEqual([]);
  });

  it('works at 420 and 360 px: Sign out in view, no labels overlapping, no sideways page; axe finds nothing', async () => {
    for (const width of [420, 360]) {
      await page.setViewportSize({ width, height: 800 });
      const layout = await page.evaluate(() => {
        const doc = (globalThis as any).document;
        const visible = (e: any) => e.getClientRects().length > 0;
        const labels = [...Array.from(doc.querySelectorAll('label, legend, h1, .who') as ArrayLike<any>)]
          .filter(visible)
          .map((e: any) => ({ text: e.textContent as string, r: e.getBoundingClientRect() }));
        const overlaps: string[] = [];
        for (let i = 0; i < labels.length; i++)
          for (let j = i + 1; j < labels.length; j++) {
            const a = labels[i]!.r;
            const b = labels[j]!.r;
            if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
              overlaps.push(`${labels[i]!.text} / ${labels[j]!.text}`);
          }
        return {
          page: doc.documentElement.scrollWidth,
          signOut: doc.querySelector('#sign-out').getBoundingClientRect().right,
          overlaps,
        };
      });
      expect(layout.page, `${width} px`).toBeLessThanOrEqual(width);
      expect(layout.signOut, `${width} px`).toBeLessThanOrEqual(width);
      expect(layout.overlaps, `${width} px`).toEqual([]);
      if (width === 420) {
        await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
        await page.screenshot({ path: path.join(ARTIFACTS, 'screenshot-narrow.png') });
      }
      expect(await axeViolations(), `${width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1360, height: 900 });
  });

  it('saves the view by name for the organization, lists it, opens it, refuses the name twice, deletes it', async () => {
    const name = 'Campaigns by day, compared';
    await page.fill('#view-name', name);
    await page.click('#save-view');
    await page.waitForSelector(`#view-list li a:text-is("${name}")`);
    const listed = await fx.get('/reporting/v0/views', org.token);
    expect(listed.status).toBe(200);
    const saved = listed.json.views.find((v: { name: string }) => v.name === name);
    expect(saved).toMatchObject({
      endpoint: 'campaigns',
      query: { compare: 'PREVIOUS_PERIOD', dateRange: 'LAST_30_DAYS' },
    });
    const wanted = new URLSearchParams(new URL(page.url()).hash.slice(1));

    await settledAfter(() =>
      page.evaluate(() => {
        (globalThis as any).location.hash = 'endpoint=accounts&dateRange=LAST_7_DAYS';
      }),
    );
    await settledAfter(() => page.click(`#view-list li a:text-is("${name}")`));
    const opened = new URLSearchParams(new URL(page.url()).hash.slice(1));
    for (const key of ['endpoint', 'dateRange', 'segments', 'compare', 'currency', 'statistics'])
      expect(opened.get(key), key).toBe(wanted.get(key));
    expect(await page.isVisible('#report-table')).toBe(true);

    await page.fill('#view-name', name);
    await page.click('#save-view');
    await page.waitForSelector('#view-name-error:not(:empty)');
    expect(await page.textContent('#view-name-error')).toContain('view_name_taken');
    expect(await page.getAttribute('#view-name', 'aria-invalid')).toBe('true');

    await page.click(`#view-list li[data-id="${saved.id}"] button`);
    await page.waitForSelector(`#view-list li[data-id="${saved.id}"]`, { state: 'detached' });
    expect((await fx.get('/reporting/v0/views', org.token)).json.views).toEqual([]);
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
