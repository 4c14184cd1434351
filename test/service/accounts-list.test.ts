import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let auth: Record<string, string>;
let ids: number[];
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  const token = await server.token();
  auth = { authorization: `Bearer ${token}` };
  ids = [];
  // 105 accounts, so the default page (100) does not hold them all; labels on a known subset.
  for (let i = 0; i < 105; i++) {
    const labels: Record<string, string> = { tier: i % 3 === 0 ? 'gold' : 'silver' };
    if (i % 5 === 0) labels.region = 'EMEA: north';
    if (i === 7) labels.clientId = 'C-7 & co/50%';
    ids.push((await createAccount(server, token, { name: `Account ${i}`, labels })).id);
  }
});
afterAll(() => server.close());

const list = (query: string) => server.http.get(`/provisioning/v0/accounts${query}`, auth);
const idsOf = (res: { json: any }) => res.json.accounts.map((a: { id: number }) => a.id);

describe('GET /provisioning/v0/accounts: paging', () => {
  it('returns 100 by default, sorted by id, with X-TotalCount over all pages', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.headers['x-totalcount']).toBe('105');
    expect(idsOf(res)).toEqual(ids.slice(0, 100));
  });

  it('walks pages of limit with offsets that are multiples of it', async () => {
    const seen: number[] = [];
    for (let offset = 0; offset < 105; offset += 20) {
      const res = await list(`?limit=20&offset=${offset}`);
      expect(res.headers['x-totalcount']).toBe('105');
      seen.push(...idsOf(res));
    }
    expect(seen).toEqual(ids);
  });

  it('answers an offset past the end with an empty page and the total', async () => {
    const res = await list('?limit=50&offset=200');
    expect(res.status).toBe(200);
    expect(res.json.accounts).toEqual([]);
    expect(res.headers['x-totalcount']).toBe('105');
  });

  it('returns the full account shape in lists', async () => {
    const res = await list(`?id=${ids[7]}`);
    expect(res.json.accounts[0]).toMatchObject({
      id: ids[7],
      name: 'Account 7',
      language: 'de',
      country: 'DE',
      labels: { tier: 'silver', clientId: 'C-7 & co/50%' },
      linkedAdPlatformAccounts: [],
    });
    expect(Object.keys(res.json.accounts[0])).toHaveLength(9 + 30);
  });
});

describe('filters', () => {
  it('filters by label, percent-decoded', async () => {
    const res = await list(`?labels=${encodeURIComponent('tier:gold')}&limit=100`);
    expect(idsOf(res)).toEqual(ids.filter((_, i) => i % 3 === 0));
    expect(res.headers['x-totalcount']).toBe(String(ids.filter((_, i) => i % 3 === 0).length));
  });

  it('takes a raw comma and colon as separators, and a value with reserved characters when encoded', async () => {
    const res = await list(`?labels=tier:gold,clientId:${encodeURIComponent('C-7 & co/50%')}`);
    expect(idsOf(res)).toEqual([]);
    const seven = await list(`?labels=${encodeURIComponent('tier:silver,clientId:C-7 & co/50%')}`);
    expect(idsOf(seven)).toEqual([ids[7]]);
  });

  it('requires every label filter to match; a value may contain a colon', async () => {
    const res = await list(`?labels=${encodeURIComponent('tier:gold,region:EMEA: north')}`);
    expect(idsOf(res)).toEqual(ids.filter((_, i) => i % 15 === 0));
    expect(idsOf(await list(`?labels=${encodeURIComponent('region:EMEA')}`))).toEqual([]);
  });

  it('cannot express a value with a comma: the part after it is a malformed filter', async () => {
    const res = await list(`?labels=${encodeURIComponent('region:north, west')}`);
    expect(res.status).toBe(400);
  });

  it('takes a label value of 255 characters counted as code points (255 emoji), not 256', async () => {
    expect((await list(`?labels=${encodeURIComponent(`tier:${'😀'.repeat(255)}`)}`)).status).toBe(200);
    expect((await list(`?labels=${encodeURIComponent(`tier:${'😀'.repeat(256)}`)}`)).status).toBe(400);
  });

  it('matches label names and values exactly (case-sensitive)', async () => {
    expect(idsOf(await list('?labels=Tier%3Agold'))).toEqual([]);
    expect(idsOf(await list('?labels=tier%3AGold'))).toEqual([]);
  });

  it('filters by a comma list of ids, ignoring ids that do not exist', async () => {
    const wanted = [ids[3]!, ids[50]!, ids[104]!];
    const res = await list(`?id=${wanted.join(',')},999999`);
    expect(idsOf(res)).toEqual(wanted);
    expect(res.headers['x-totalcount']).toBe('3');
  });

  it('combines ids, labels and paging', async () => {
    const res = await list(`?id=${ids.slice(0, 10).join('%2C')}&labels=tier%3Agold&limit=2&offset=2`);
    expect(idsOf(res)).toEqual([ids[6], ids[9]]);
    expect(res.headers['x-totalcount']).toBe('4');
  });
});

describe('bad parameters: 400 naming the parameter', () => {
  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=', 'limit'],
    ['?limit=-5', 'limit'],
    ['?limit=10&offset=5', 'offset'],
    ['?offset=-100', 'offset'],
    ['?offset=1.5', 'offset'],
    ['?offset=50', 'offset'],
    ['?labels=tier', 'labels'],
    ['?labels=', 'labels'],
    ['?labels=1tier%3Agold', 'labels'],
    [`?labels=${encodeURIComponent('a:1,b:2,c:3,d:4,e:5,f:6')}`, 'labels'],
    [`?labels=t%3A${'v'.repeat(256)}`, 'labels'],
    ['?id=abc', 'id'],
    ['?id=1,,2', 'id'],
    ['?id=', 'id'],
    [`?id=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`, 'id'],
    ['?id=99999999999999999999', 'id'],
    ['?limt=10', 'limt'],
    ['?limit=10&limit=20', 'limit'],
  ])('%s', async (query, parameter) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain(parameter);
    expect(res.json.error.details[0].field).toBe(parameter);
  });

  it('accepts five label filters', async () => {
    const res = await list(`?labels=${encodeURIComponent('tier:gold,a:1,b:2,c:3,d:4')}`);
    expect(res.status).toBe(200);
  });
});
