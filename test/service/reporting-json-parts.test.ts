import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_PART_ROWS } from '../../src/sql/compile-report.js';
import { encodeQuery, startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * A JSON page leaves DuckDB in parts of PAGE_PART_ROWS rows, copied out one at a time while the
 * socket drains. The parts must make exactly the page the single-part path makes, byte counts
 * included, and a response cut short or cut off by a shutdown must leave the service well.
 */
let fx: ReportingFixture;
const QUERY = { segments: 'Day', sort: '-statistics.cost' };

beforeAll(async () => {
  fx = await startReportingFixture({ world: 'small-2orgs-30d', service: { shutdownTimeoutMs: 300 } });
}, 300_000);
afterAll(async () => {
  await fx?.close();
});

const token = () => fx.orgs[0]!.token;
const keywords = async (limit: number, offset: number) => {
  const res = await fx.report('keywords', token(), { ...QUERY, limit, offset });
  expect(res.status).toBe(200);
  return res;
};

/** A raw request whose body the test reads (or not) at its own pace. */
function openPage(
  query: Record<string, string | number>,
): Promise<{ response: import('node:http').IncomingMessage; request: import('node:http').ClientRequest }> {
  return new Promise((resolve, reject) => {
    const url = new URL(fx.service.url);
    const request = https.get(
      {
        host: url.hostname,
        port: url.port,
        path: `/reporting/v0/keywords?${encodeQuery(query)}`,
        ca: fx.service.tls!.cert,
        servername: 'localhost',
        headers: { authorization: `Bearer ${token()}` },
      },
      (response) => resolve({ response, request }),
    );
    request.on('error', reject);
  });
}

describe('JSON pages in parts', () => {
  it(`pages of more than ${PAGE_PART_ROWS} rows (several parts) are the pages of 50 (one part) laid end to end, in the asked order`, async () => {
    const reference: unknown[] = [];
    for (let offset = 0; offset < 1_200; offset += 50)
      reference.push(...((await keywords(50, offset)).json.keywords as unknown[]));
    expect(reference.length).toBe(1_200);
    for (const limit of [PAGE_PART_ROWS, PAGE_PART_ROWS + 1, 2 * PAGE_PART_ROWS, 2 * PAGE_PART_ROWS + 1, 600]) {
      for (const offset of [0, limit]) {
        const page = (await keywords(limit, offset)).json.keywords as unknown[];
        expect(page, `limit ${limit} offset ${offset}`).toEqual(reference.slice(offset, offset + limit));
      }
    }
  });

  it('Content-Length counts the bytes sent and X-TotalCount the whole result: one part, many parts, and none past the end', async () => {
    const total = Number((await keywords(1, 0)).headers['x-totalcount']);
    expect(total).toBeGreaterThan(3 * PAGE_PART_ROWS);
    const lastPage = Math.floor((total - 1) / 100) * 100;
    const pastTheEnd = Math.ceil(total / 10) * 10 + 10;
    for (const [limit, offset, rows] of [
      [10, 0, 10],
      [10_000, 0, Math.min(10_000, total)],
      [100, lastPage, total - lastPage],
      [10, pastTheEnd, 0],
    ] as const) {
      const res = await keywords(limit, offset);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(Number(res.headers['x-totalcount'])).toBe(total);
      expect(res.json.keywords).toHaveLength(rows);
    }
    // Past the end: no rows, then meta (issue 23: always the last member).
    const empty = await keywords(10, pastTheEnd);
    expect(empty.text).toBe(`{"keywords":[],"meta":${JSON.stringify(empty.json.meta)}}`);
  });

  it('carries totals after the parts', async () => {
    const res = await fx.report('keywords', token(), {
      ...QUERY,
      statistics: 'clicks,cost',
      totals: 'true',
      limit: 3 * PAGE_PART_ROWS,
    });
    expect(res.status).toBe(200);
    const rows = res.json.keywords as Array<{ statistics: { clicks: number } }>;
    expect(rows).toHaveLength(3 * PAGE_PART_ROWS);
    expect(res.json.totals.clicks).toBeGreaterThanOrEqual(rows.reduce((n, r) => n + r.statistics.clicks, 0));
  });

  it('a client that hangs up halfway through a large page leaves the service serving, with nothing logged', async () => {
    const { response, request } = await openPage({ ...QUERY, limit: 10_000 });
    expect(response.statusCode).toBe(200);
    expect(Number(response.headers['content-length'])).toBeGreaterThan(1_000_000);
    await new Promise<void>((resolve) => response.once('data', () => resolve()));
    request.destroy();
    const again = await keywords(2 * PAGE_PART_ROWS + 1, 0);
    expect(again.json.keywords).toHaveLength(2 * PAGE_PART_ROWS + 1);
    expect(fx.errors).toEqual([]);
  });

  // Last: it shuts the service down.
  it('a shutdown while a slow client reads a large page cuts that response after the timeout and closes cleanly', async () => {
    const { response } = await openPage({ ...QUERY, limit: 10_000 });
    const expected = Number(response.headers['content-length']);
    response.pause();
    const closing = fx.service.close();
    let received = 0;
    const ended = new Promise<string>((resolve) => {
      response.on('data', (chunk: Buffer) => (received += chunk.length));
      response.on('end', () => resolve('end'));
      response.on('aborted', () => resolve('aborted'));
      response.on('error', () => resolve('error'));
    });
    await closing;
    response.resume();
    expect(await ended).not.toBe('end');
    expect(received).toBeLessThan(expected);
    expect(fx.errors).toEqual([]);
  });
});
