import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, jsonRequest, otherTenantToken } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
let otherToken: string;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { ratePerSecond: 10_000, burst: 10_000 } });
  token = await server.token();
  otherToken = await otherTenantToken(server);
});
afterAll(() => server.close());

const MERGE = 'application/merge-patch+json';
const accountPath = (id: number | string) => `/provisioning/v0/accounts/id/${id}/labels`;
const campaignPath = (id: number | string) => `/provisioning/v0/campaigns/id/${id}/labels`;
const get = (path: string, as = token) => server.http.get(path, { authorization: `Bearer ${as}` });
const put = (path: string, labels: unknown, as = token) => jsonRequest(server, as, 'PUT', path, { labels });
const patch = (path: string, labels: unknown, contentType = MERGE) =>
  jsonRequest(server, token, 'PATCH', path, { labels }, contentType);
/** `field code` of every detail, sorted, so one assertion states every broken rule. */
const details = (res: { json: any }) =>
  (res.json.error.details as Array<{ field: string; code: string }>).map((d) => `${d.field} ${d.code}`).sort();
const accountLabels = async (id: number) =>
  (await server.http.get(`/provisioning/v0/accounts/id/${id}`, { authorization: `Bearer ${token}` })).json.account
    .labels;
const many = (n: number, prefix = 'l') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `v${i}`]));

let platformIds = 0;
/** Campaign import is another feature; a row as it would write it, with its system label. */
async function insertCampaign(group = 'Brand'): Promise<number> {
  const organizationId = server.service.demo!.created ? server.service.demo!.organization.id : 1;
  return server.service.db.write('all-organizations', async (tx) => {
    const row = await tx.one<{ id: number }>(
      "INSERT INTO campaigns (organization_id, adplatform_account_id, ad_platform_type, ad_platform_id, name, status) VALUES ($1, 1, 'GOOGLE_ADS', $2, 'C', 'ENABLED') RETURNING id",
      [organizationId, `cmp-${++platformIds}`],
    );
    await tx.run("INSERT INTO campaign_labels (campaign_id, name, value) VALUES ($1, 'sys.campaignGroup', $2)", [
      row!.id,
      group,
    ]);
    return row!.id;
  });
}
const storedCampaignRows = (id: number) =>
  server.service.db.read((r) =>
    r.all('SELECT name, value FROM campaign_labels WHERE campaign_id = $1 ORDER BY name', [id]),
  );

describe('account labels', () => {
  it('GET answers the labels sorted by name, {} when there are none', async () => {
    const { id } = await createAccount(server, token, { labels: { zeta: 'z', alpha: 'a' } });
    const res = await get(accountPath(id));
    expect(res.status).toBe(200);
    expect(Object.entries(res.json.labels)).toEqual([
      ['alpha', 'a'],
      ['zeta', 'z'],
    ]);
    const bare = await createAccount(server, token);
    expect((await get(accountPath(bare.id))).json).toEqual({ labels: {} });
  });

  it('PUT replaces every label, and the account shows the new set', async () => {
    const { id } = await createAccount(server, token, { labels: { old: '1', other: '2' } });
    const res = await put(accountPath(id), { b: 'B', a: 'A' });
    expect(res.status).toBe(200);
    expect(Object.entries(res.json.labels)).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
    expect(await accountLabels(id)).toEqual({ a: 'A', b: 'B' });
    expect((await put(accountPath(id), {})).json.labels).toEqual({});
    expect(await accountLabels(id)).toEqual({});
  });

  it('PATCH merges: a string sets or replaces, null deletes (absent is fine), others stay', async () => {
    const { id } = await createAccount(server, token, { labels: { keep: 'k', change: 'old', gone: 'x' } });
    const res = await patch(accountPath(id), { change: 'new', added: 'a', gone: null, neverExisted: null });
    expect(res.status).toBe(200);
    expect(Object.entries(res.json.labels)).toEqual([
      ['added', 'a'],
      ['change', 'new'],
      ['keep', 'k'],
    ]);
    expect(await accountLabels(id)).toEqual({ added: 'a', change: 'new', keep: 'k' });
    const plain = await patch(accountPath(id), { keep: null }, 'application/json');
    expect(plain.json.labels).toEqual({ added: 'a', change: 'new' });
  });

  it('accepts the limits themselves: 64-character names, 255-character values, 50 labels, names like constructor', async () => {
    const { id } = await createAccount(server, token);
    const edge = {
      [`N${'x'.repeat(63)}`]: 'v'.repeat(255),
      constructor: 'c',
      campaignGroup: 'reserved only on campaigns',
    };
    expect((await put(accountPath(id), edge)).json.labels).toEqual(edge);
    expect((await put(accountPath(id), many(50))).json.labels).toEqual(many(50));
  });

  it("counts a value's characters as code points: 255 emoji are a valid value, 256 are too long", async () => {
    const { id } = await createAccount(server, token);
    expect((await put(accountPath(id), { mood: '😀'.repeat(255) })).json.labels).toEqual({ mood: '😀'.repeat(255) });
    const res = await patch(accountPath(id), { mood: '😀'.repeat(256) });
    expect(res.status).toBe(422);
    expect(res.json.error.details).toEqual([expect.objectContaining({ field: 'labels.mood', code: 'too_long' })]);
  });

  it('refuses every broken rule at once with 422 naming labels.<name>, and changes nothing', async () => {
    const { id } = await createAccount(server, token, { labels: { before: 'b' } });
    const res = await put(accountPath(id), {
      ok: 'fine',
      '1st': 'x',
      'with-dash': 'x',
      [`N${'x'.repeat(64)}`]: 'x',
      long: 'v'.repeat(256),
      count: 3,
      nothing: null,
      nested: { a: 'b' },
      list: ['a'],
    });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    expect(details(res)).toEqual(
      [
        'labels.1st invalid_name',
        'labels.with-dash invalid_name',
        `labels.N${'x'.repeat(64)} invalid_name`,
        'labels.long too_long',
        'labels.count wrong_type',
        'labels.nothing wrong_type',
        'labels.nested wrong_type',
        'labels.list wrong_type',
      ].sort(),
    );
    expect(await accountLabels(id)).toEqual({ before: 'b' });
    const patched = await patch(accountPath(id), { before: null, bad: 7, 'a.b': 'x' });
    expect(details(patched)).toEqual(['labels.a.b invalid_name', 'labels.bad wrong_type']);
    expect(await accountLabels(id)).toEqual({ before: 'b' });
  });

  it('refuses __proto__ as a label name instead of dropping it', async () => {
    const { id } = await createAccount(server, token, { labels: { before: 'b' } });
    for (const method of ['PUT', 'PATCH']) {
      const res = await jsonRequest(server, token, method, accountPath(id), '{"labels":{"__proto__":"x"}}');
      expect(res.status, method).toBe(422);
      expect(details(res)).toEqual(['labels.__proto__ invalid_name']);
    }
    expect(await accountLabels(id)).toEqual({ before: 'b' });
  });

  it('counts the result of a merge: more than 50 after PATCH is 422 too_many', async () => {
    const { id } = await createAccount(server, token, { labels: many(49) });
    const tooMany = await patch(accountPath(id), { extra1: 'a', extra2: 'b' });
    expect(tooMany.status).toBe(422);
    expect(details(tooMany)).toEqual(['labels too_many']);
    expect(await accountLabels(id)).toEqual(many(49));
    // Deleting one while adding two ends at exactly 50.
    const swapped = await patch(accountPath(id), { l0: null, extra1: 'a', extra2: 'b' });
    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.json.labels)).toHaveLength(50);
    expect(details(await put(accountPath(id), many(51)))).toEqual(['labels too_many']);
  });

  it('never loses a label when patches of one account run concurrently', async () => {
    const { id } = await createAccount(server, token);
    const names = Array.from({ length: 15 }, (_, i) => `c${i}`);
    const results = await Promise.all(names.map((name) => patch(accountPath(id), { [name]: name })));
    expect(results.map((r) => r.status)).toEqual(names.map(() => 200));
    expect(await accountLabels(id)).toEqual(Object.fromEntries(names.map((n) => [n, n])));
  });
});

describe('campaign labels', () => {
  it('GET hides system labels', async () => {
    const id = await insertCampaign();
    expect((await get(campaignPath(id))).json).toEqual({ labels: {} });
  });

  it('PUT and PATCH change client labels only; sys.campaignGroup stays untouched', async () => {
    const id = await insertCampaign('Group A');
    const replaced = await put(campaignPath(id), { channel: 'search', owner: 'kim' });
    expect(replaced.status).toBe(200);
    expect(replaced.json.labels).toEqual({ channel: 'search', owner: 'kim' });
    const patched = await patch(campaignPath(id), { owner: null, region: 'EU' });
    expect(patched.json.labels).toEqual({ channel: 'search', region: 'EU' });
    expect((await get(campaignPath(id))).json.labels).toEqual({ channel: 'search', region: 'EU' });
    expect(await storedCampaignRows(id)).toEqual([
      { name: 'channel', value: 'search' },
      { name: 'region', value: 'EU' },
      { name: 'sys.campaignGroup', value: 'Group A' },
    ]);
    expect((await put(campaignPath(id), {})).json.labels).toEqual({});
    expect(await storedCampaignRows(id)).toEqual([{ name: 'sys.campaignGroup', value: 'Group A' }]);
  });

  it('refuses campaignGroup in any case and sys.* names as reserved, even to delete them', async () => {
    const id = await insertCampaign('Group B');
    await put(campaignPath(id), { kept: 'yes' });
    const names = ['campaignGroup', 'CAMPAIGNGROUP', 'campaigngroup', 'sys.campaignGroup', 'sys.other'];
    for (const name of names) {
      for (const res of [
        await put(campaignPath(id), { [name]: 'x' }),
        await patch(campaignPath(id), { [name]: 'x' }),
        await patch(campaignPath(id), { [name]: null }),
      ]) {
        expect(res.status, name).toBe(422);
        expect(details(res), name).toEqual([`labels.${name} reserved`]);
        expect(res.json.error.details[0].message).toMatch(/campaignGroup is set when the campaign is imported/);
      }
    }
    expect(await storedCampaignRows(id)).toEqual([
      { name: 'kept', value: 'yes' },
      { name: 'sys.campaignGroup', value: 'Group B' },
    ]);
  });

  it('applies the general rules and the 50-label limit, system labels not counted', async () => {
    const id = await insertCampaign();
    expect(details(await put(campaignPath(id), { 'bad name': 'x', long: 'v'.repeat(256), n: 1 }))).toEqual([
      'labels.bad name invalid_name',
      'labels.long too_long',
      'labels.n wrong_type',
    ]);
    expect((await put(campaignPath(id), many(50))).status).toBe(200);
    expect(details(await patch(campaignPath(id), { one: 'more' }))).toEqual(['labels too_many']);
    expect(await storedCampaignRows(id)).toHaveLength(51);
  });
});

describe('labels: ids, organizations and unreadable requests', () => {
  it('answers 404 to another organization, and its requests change nothing', async () => {
    const { id } = await createAccount(server, token, { labels: { mine: 'yes' } });
    const campaignId = await insertCampaign();
    for (const path of [accountPath(id), campaignPath(campaignId)]) {
      expect((await get(path, otherToken)).status, path).toBe(404);
      expect((await put(path, { theirs: 'x' }, otherToken)).status, path).toBe(404);
      expect(
        (await jsonRequest(server, otherToken, 'PATCH', path, { labels: { theirs: 'x' } }, MERGE)).status,
        path,
      ).toBe(404);
    }
    expect(await accountLabels(id)).toEqual({ mine: 'yes' });
    expect(await storedCampaignRows(campaignId)).toEqual([{ name: 'sys.campaignGroup', value: 'Brand' }]);
  });

  it('answers 404 for unknown ids and 400 for ids that are not integers', async () => {
    for (const path of [accountPath, campaignPath]) {
      expect((await get(path(999_999))).status).toBe(404);
      expect((await put(path(999_999), {})).status).toBe(404);
      expect((await patch(path(0), {})).status).toBe(404);
      const bad = await get(path('abc'));
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('invalid_parameter');
    }
  });

  it('answers 400 to a body that is not {labels: {...}} and 415 to other media types', async () => {
    const { id } = await createAccount(server, token, { labels: { before: 'b' } });
    for (const body of ['{}', '{"labels":[]}', '{"labels":"x"}', '{"labels":null}', '[]', '{"labels":{},"extra":1}']) {
      for (const method of ['PUT', 'PATCH']) {
        const res = await jsonRequest(server, token, method, accountPath(id), body);
        expect(res.status, `${method} ${body}`).toBe(400);
        expect(res.json.error.code, `${method} ${body}`).toBe('invalid_body');
      }
    }
    expect((await jsonRequest(server, token, 'PUT', accountPath(id), '{"labels":')).json.error.code).toBe(
      'malformed_json',
    );
    expect((await jsonRequest(server, token, 'PUT', accountPath(id), { labels: {} }, 'text/plain')).status).toBe(415);
    expect((await jsonRequest(server, token, 'PUT', accountPath(id), { labels: {} }, MERGE)).status).toBe(415);
    expect((await patch(accountPath(id), {}, 'application/json-patch+json')).status).toBe(415);
    expect(await accountLabels(id)).toEqual({ before: 'b' });
  });

  it('documents all six operations in the OpenAPI document', async () => {
    const paths = (await server.http.get('/openapi.json')).json.paths;
    for (const path of ['/provisioning/v0/accounts/id/{id}/labels', '/provisioning/v0/campaigns/id/{id}/labels']) {
      expect(Object.keys(paths[path] ?? {}).sort(), path).toEqual(['get', 'patch', 'put']);
    }
  });
});
