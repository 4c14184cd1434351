import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdreportError } from '../../src/client/index.js';
import { testClient, type TestClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The typed client (`adreport/client`) against a real server: token handling, typed calls and
 * errors, page iteration and streamed exports, each compared with what plain HTTP answers.
 */
const ACCOUNTS = 7;
let server: TestServer;
let bearer: string;

beforeAll(async () => {
  server = await startTestServer();
  bearer = await server.token();
  const { client, close } = testClient(server);
  for (let i = 0; i < ACCOUNTS; i++) {
    const { data, error } = await client.POST('/provisioning/v0/accounts', {
      body: { account: { name: `Client ${i}`, languageCode: 'de', countryCode: 'DE', currency: 'EUR' } },
    });
    if (error || !data) throw new Error(`create failed: ${JSON.stringify(error)}`);
  }
  await close();
});
afterAll(() => server.close());

async function withClient<T>(
  use: (c: TestClient) => Promise<T>,
  ...args: Parameters<typeof testClient> extends [unknown, ...infer R] ? R : never
): Promise<T> {
  const c = testClient(server, ...args);
  try {
    return await use(c);
  } finally {
    await c.close();
  }
}

const tokenRequests = (c: TestClient) => c.sent.filter((s) => s.url.pathname === '/token').length;

describe('tokens', () => {
  it('asks for one token however many calls start at once, and sends it on each', async () => {
    await withClient(async (c) => {
      await Promise.all(Array.from({ length: 5 }, () => c.client.get('/provisioning/v0/accounts')));
      expect(tokenRequests(c)).toBe(1);
      const token = (await c.client.token()).accessToken;
      const calls = c.sent.filter((s) => s.url.pathname !== '/token');
      expect(calls).toHaveLength(5);
      for (const call of calls) expect(call.authorization).toBe(`Bearer ${token}`);
    });
  });

  it('renews the token before it expires: at expires_in minus renewBeforeSeconds on the client clock', async () => {
    let now = Date.now();
    await withClient(
      async (c) => {
        const first = await c.client.token();
        const lifetimeMs = first.expiresAtMs - now;
        expect(lifetimeMs).toBeGreaterThan(120_000);
        now += lifetimeMs - 120_001; // just before the margin: the same token
        expect((await c.client.token()).accessToken).toBe(first.accessToken);
        now += 2; // inside the margin: a new one, before the old one expires
        const second = await c.client.token();
        expect(tokenRequests(c)).toBe(2);
        expect(second.expiresAtMs).toBeGreaterThan(first.expiresAtMs);
        await c.client.get('/provisioning/v0/accounts'); // the new token works
      },
      { nowMs: () => now, renewBeforeSeconds: 120 },
    );
  });

  it('gets a new token once and repeats the call when the service refuses the token (401)', async () => {
    let spoiled = 0;
    await withClient(
      async (c) => {
        const list = await c.client.get('/provisioning/v0/accounts');
        expect(list.accounts).toHaveLength(ACCOUNTS);
        expect(spoiled).toBe(1);
        expect(tokenRequests(c)).toBe(2);
      },
      {},
      (request) => {
        if (request.url.endsWith('/token') || spoiled > 0) return request;
        spoiled++;
        const copy = new Request(request);
        copy.headers.set('authorization', 'Bearer not-a-token');
        return copy;
      },
    );
  });

  it('throws an AdreportError with the OAuth code for wrong credentials', async () => {
    await withClient(
      async (c) => {
        const error = await c.client.token().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AdreportError);
        expect(error).toMatchObject({ status: 401, code: 'invalid_client' });
        await expect(c.client.get('/provisioning/v0/accounts')).rejects.toMatchObject({ code: 'invalid_client' });
      },
      { clientSecret: 'wrong' },
    );
  });

  it('sends a secret with reserved characters form-encoded inside Basic (RFC 6749 2.3.1)', async () => {
    await withClient(
      async (c) => {
        const error = (await c.client.token().catch((e: unknown) => e)) as AdreportError;
        // Wrong but well-formed: invalid_client (401), not a malformed header (400 invalid_request).
        expect(error.status).toBe(401);
        expect(error.code).toBe('invalid_client');
      },
      { clientSecret: 'a:b c+d%é' },
    );
  });
});

describe('typed calls and errors', () => {
  it('returns the body plain HTTP returns', async () => {
    const raw = await server.http.get('/provisioning/v0/accounts?limit=3', { authorization: `Bearer ${bearer}` });
    await withClient(async (c) => {
      const typed = await c.client.get('/provisioning/v0/accounts', { params: { query: { limit: 3 } } });
      expect(typed).toEqual(raw.json);
      const { data, response } = await c.client.GET('/provisioning/v0/accounts/id/{id}', {
        params: { path: { id: typed.accounts[0]!.id } },
      });
      expect(response.status).toBe(200);
      expect(data?.account.name).toBe(typed.accounts[0]!.name);
    });
  });

  it('throws the service error: status, code, details with the position, request id', async () => {
    await withClient(async (c) => {
      const filter = "name == 'x' && statistics.clicsk > 3";
      const error = (await c.client
        .get('/reporting/v0/accounts', { params: { query: { filter } } })
        .catch((e: unknown) => e)) as AdreportError;
      expect(error).toBeInstanceOf(AdreportError);
      expect(error.status).toBe(400);
      expect(error.code).toBe('invalid_parameter');
      expect(error.detail('filter')?.code).toBe('invalid_expression');
      expect(error.detail('filter')?.position).toBe(filter.indexOf('statistics.clicsk'));
      expect(error.requestId).toMatch(/\S/);
      const notFound = (await c.client
        .get('/provisioning/v0/accounts/id/{id}', { params: { path: { id: 999_999 } } })
        .catch((e: unknown) => e)) as AdreportError;
      expect(notFound).toMatchObject({ status: 404, code: 'not_found' });
    });
  });

  it('serializes lists as the document says (comma lists), reserved characters encoded', async () => {
    await withClient(async (c) => {
      await c.client.get('/reporting/v0/accounts', {
        params: {
          query: { statistics: ['clicks', 'cost'], segments: ['Month', 'DeviceType'], filter: "name == 'a b'" },
        },
      });
      const call = c.sent.find((s) => s.url.pathname === '/reporting/v0/accounts')!;
      expect(call.url.searchParams.get('statistics')).toBe('clicks,cost');
      expect(call.url.searchParams.get('segments')).toBe('Month,DeviceType');
      expect(call.url.search).not.toMatch(/[ '[\]]/);
    });
  });

  it('waits as Retry-After says and repeats a GET answered 429; with retries 0 the 429 is thrown', async () => {
    const limited = await startTestServer({ rateLimit: { ratePerSecond: 1, burst: 2 } });
    try {
      const patient = testClient(limited, { retries: 2 });
      const impatient = testClient(limited, { retries: 0 });
      try {
        const results = [];
        for (let i = 0; i < 3; i++) results.push(await patient.client.get('/provisioning/v0/accounts'));
        expect(results).toHaveLength(3);
        const statuses = patient.sent.filter((s) => s.url.pathname !== '/token');
        expect(statuses.length).toBeGreaterThan(3); // at least one call was sent again
        const error = (await (async () => {
          for (let i = 0; i < 5; i++) await impatient.client.get('/provisioning/v0/accounts');
        })().catch((e: unknown) => e)) as AdreportError;
        expect(error).toBeInstanceOf(AdreportError);
        expect(error.status).toBe(429);
        expect(error.code).toBe('rate_limited');
        expect(error.retryAfterSeconds).toBeGreaterThan(0);
      } finally {
        await patient.close();
        await impatient.close();
      }
    } finally {
      await limited.close();
    }
  });
});

describe('pages and rows', () => {
  it('walks every page with X-TotalCount and yields each row once, in id order', async () => {
    const raw = await server.http.get('/provisioning/v0/accounts?limit=100', { authorization: `Bearer ${bearer}` });
    const expected = (raw.json.accounts as Array<{ id: number }>).map((a) => a.id);
    expect(expected).toHaveLength(ACCOUNTS);
    await withClient(async (c) => {
      const pages = [];
      for await (const page of c.client.pages('/provisioning/v0/accounts', { params: { query: { limit: 3 } } }))
        pages.push(page);
      expect(pages.map((p) => p.offset)).toEqual([0, 3, 6]);
      expect(pages.every((p) => p.totalCount === ACCOUNTS)).toBe(true);
      const ids = [];
      for await (const account of c.client.rows('/provisioning/v0/accounts', { params: { query: { limit: 2 } } }))
        ids.push(account.id);
      expect(ids).toEqual(expected);
      // A report pages the same way: its rows under the level's key, meta and warnings aside.
      const reportIds = [];
      for await (const row of c.client.rows('/reporting/v0/accounts', { params: { query: { limit: 5, sort: 'id' } } }))
        reportIds.push(row.id);
      expect(reportIds).toEqual(expected);
    });
  });

  it('stops at the first error with the AdreportError', async () => {
    await withClient(async (c) => {
      const walk = async () => {
        for await (const _ of c.client.pages('/provisioning/v0/accounts', {
          params: { query: { limit: 3, offset: 1 } },
        })) {
          // offset must be a multiple of limit
        }
      };
      await expect(walk()).rejects.toMatchObject({ status: 400, code: 'invalid_parameter' });
    });
  });
});

describe('exports', () => {
  for (const format of ['csv', 'ndjson', 'parquet'] as const) {
    it(`streams the ${format} export byte for byte as plain HTTP sends it, with its file name`, async () => {
      const query = 'dateRange=LAST_30_DAYS&statistics=clicks,cost&sort=-id';
      const raw = await rawBytes(`/reporting/v0/accounts?${query}&format=${format}`);
      await withClient(async (c) => {
        const download = await c.client.export('/reporting/v0/accounts', format, {
          params: { query: { dateRange: 'LAST_30_DAYS', statistics: ['clicks', 'cost'], sort: '-id' } },
        });
        expect(download.contentType).toBe(raw.contentType);
        expect(download.fileName).toMatch(
          new RegExp(`^accounts_\\d{4}-\\d{2}-\\d{2}_\\d{4}-\\d{2}-\\d{2}\\.${format}$`),
        );
        const chunks: Uint8Array[] = [];
        for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
        expect(Buffer.concat(chunks).equals(raw.bytes)).toBe(true);
      });
    });
  }

  it('throws the service error of a bad export before any byte', async () => {
    await withClient(async (c) => {
      await expect(
        c.client.export('/reporting/v0/accounts', 'csv', { params: { query: { sort: 'nope' } } }),
      ).rejects.toMatchObject({
        status: 400,
        code: 'invalid_parameter',
        details: [expect.objectContaining({ field: 'sort', position: 0 })],
      });
    });
  });
});

/** The bytes and Content-Type of a GET over the suite's own HTTPS client, gzip not asked for. */
async function rawBytes(path: string): Promise<{ bytes: Buffer; contentType: string }> {
  const { default: https } = await import('node:https');
  const url = new URL(path, server.service.url);
  return new Promise((resolve, reject) => {
    https
      .get(
        url,
        { ca: server.service.tls?.cert, servername: 'localhost', headers: { authorization: `Bearer ${bearer}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ bytes: Buffer.concat(chunks), contentType: String(res.headers['content-type']) }),
          );
        },
      )
      .on('error', reject);
  });
}
