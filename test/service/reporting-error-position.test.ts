import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Expression errors give the offset of the fault as `details[0].position` (0-based, into the
 * parameter's value as sent), the same number the message states: a client marks the text there.
 * The expected offsets are found with indexOf in the text the test sends.
 */
let server: TestServer;
let auth: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  auth = { authorization: `Bearer ${await server.token()}` };
});
afterAll(() => server.close());

async function detailOf(path: string, parameter: string, value: string) {
  const res = await server.http.get(`${path}?${parameter}=${encodeURIComponent(value)}`, auth);
  expect(res.status, res.text).toBe(400);
  const detail = res.json.error.details[0];
  expect(detail.field).toBe(parameter);
  expect(detail.message).toContain(`at position ${detail.position}`);
  return detail as { position: number; code: string };
}

describe('details[0].position', () => {
  const cases: Array<[string, string, string, string]> = [
    ['/reporting/v0/campaigns', 'filter', "name == 'x' && statistics.clicsk > 3", 'statistics.clicsk'],
    ['/reporting/v0/campaigns', 'filter', 'statistics.clicks >> 3', '>'],
    ['/reporting/v0/accounts', 'filter', "labels.tier == 'a' or nosuch == 1", 'nosuch'],
    ['/reporting/v0/campaigns', 'sort', 'name,-statistics.nope', 'statistics.nope'],
    ['/reporting/v0/campaigns', 'sort', '-id,1bad', '1bad'],
    [
      '/reporting/v0/campaigns',
      'formulas',
      'a:statistics.clicks:Integer,b:statistics.cost / statistics.nope:Money',
      'statistics.nope',
    ],
    ['/reporting/v0/call-details', 'filter', "status == 'ANSWERED' && nope > 2", 'nope'],
    ['/reporting/v0/call-details', 'sort', 'id,-nope', 'nope'],
  ];
  for (const [path, parameter, value, fault] of cases) {
    it(`${path} ${parameter}=${value}: at ${fault}`, async () => {
      const detail = await detailOf(path, parameter, value);
      expect(detail.position).toBe(value.indexOf(fault));
    });
  }

  it('is absent where there is no position to give', async () => {
    const res = await server.http.get('/reporting/v0/campaigns?statistics=nope', auth);
    expect(res.status).toBe(400);
    expect(res.json.error.details[0]).not.toHaveProperty('position');
  });
});
