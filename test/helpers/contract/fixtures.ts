import type { Operation } from './openapi-document.js';

/**
 * Things that exist, so generated requests reach past the 404: a few accounts with links, an
 * imported campaign, labels and markups, made through the API itself (the caller checks each
 * answer against the document), and the path ids of the current state, read from the API's own
 * lists before each operation.
 */

export type Send = (method: string, target: string, body?: unknown) => Promise<{ status: number; json: unknown }>;

const P = '/provisioning/v0';
const LABEL_NAMES = ['campaignGroup', 'tier'];

interface Listed {
  id: number;
  adPlatformId?: string;
  adPlatformType?: string;
}

function arrayOf(json: unknown): Listed[] {
  if (json === null || typeof json !== 'object') return [];
  const lists = Object.values(json as Record<string, unknown>).filter(Array.isArray) as unknown[][];
  return (lists[0] ?? []).filter(
    (item): item is Listed => item !== null && typeof item === 'object' && typeof (item as Listed).id === 'number',
  );
}

export async function seedFixtures(send: Send): Promise<void> {
  const accounts: number[] = [];
  for (const [name, languageCode, countryCode, currency] of [
    ['Contract A', 'de', 'DE', 'EUR'],
    ['Contract B', 'en', 'US', 'USD'],
    ['Contract C', 'fr', 'CH', 'CHF'],
  ] as const) {
    const res = await send('POST', `${P}/accounts`, {
      account: { name, languageCode, countryCode, currency, labels: { tier: 'gold' }, field21: 1.5 },
    });
    accounts.push((res.json as { account: { id: number } }).account.id);
  }
  const [a, b] = accounts as [number, number, number];
  const masters = arrayOf((await send('GET', `${P}/adplatform-master-accounts`)).json);
  for (const master of masters) {
    const under = (
      (await send('GET', `${P}/adplatform-master-accounts/id/${master.id}/adplatform-accounts`)).json as {
        adPlatformAccounts: Array<{ adPlatformId: string }>;
      }
    ).adPlatformAccounts;
    for (const [i, listing] of under.slice(0, 2).entries()) {
      await send('POST', `${P}/accounts/id/${i === 0 ? a : b}/adplatform-accounts`, {
        adPlatformAccount: { adPlatformType: master.adPlatformType, adPlatformId: listing.adPlatformId },
      });
    }
  }
  const direct = (
    (await send('GET', `${P}/adplatform-accounts/available?adPlatformType=FACEBOOK`)).json as {
      adPlatformAccounts: Array<{ adPlatformId: string }>;
    }
  ).adPlatformAccounts;
  if (direct[0])
    await send('POST', `${P}/accounts/id/${b}/adplatform-accounts`, {
      adPlatformAccount: { adPlatformType: 'FACEBOOK', adPlatformId: direct[0].adPlatformId, status: 'READ_ONLY' },
    });

  const known = arrayOf((await send('GET', `${P}/adplatform-accounts`)).json);
  for (const platformAccount of known.slice(0, 2)) {
    const available =
      (
        (await send('GET', `${P}/adplatform-accounts/id/${platformAccount.id}/available-campaigns`)).json as {
          campaigns?: Array<{ adPlatformId: string }>;
        }
      ).campaigns ?? [];
    if (!available[0]) continue;
    const job = (
      (
        await send('POST', `${P}/adplatform-accounts/id/${platformAccount.id}/campaigns`, {
          campaign: { adPlatformId: available[0].adPlatformId, campaignGroup: 'Brand' },
        })
      ).json as { job: { id: number } }
    ).job;
    await waitForJob(send, job.id);
  }
  for (const campaign of arrayOf((await send('GET', `${P}/campaigns`)).json))
    await send('PUT', `${P}/campaigns/id/${campaign.id}/labels`, { labels: { tier: 'gold' } });
  await send('POST', `${P}/accounts/id/${a}/markups`, {
    markup: { rate: 0.15, startDate: '2020-01-01', endDate: '2020-12-31' },
  });
  await send('POST', `${P}/accounts/id/${a}/markups`, {
    markup: { rate: 0.1, startDate: '2021-01-01', endDate: null },
  });
  // A saved view (issue 43), so its GET and DELETE by id reach past the 404.
  await send('POST', '/reporting/v0/views', {
    view: { name: 'Contract view', endpoint: 'campaigns', query: { segments: 'Day' }, chart: 'clicks' },
  });
}

async function waitForJob(send: Send, id: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const job = ((await send('GET', `${P}/jobs/id/${id}`)).json as { job: { status: string } }).job;
    if (!['QUEUED', 'RUNNING'].includes(job.status)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${id} did not end`);
}

/**
 * Path parameter assignments that exist now, for an operation path: ids of `<collection>/id/{p}`
 * from the collection's GET list (or, for a nested collection without one, from the parent's
 * arrays of objects with ids), label names for `name/{name}`. At most a few per level.
 */
export async function knownPathParams(
  operation: Operation,
  operations: readonly Operation[],
  send: Send,
): Promise<Array<Record<string, string>>> {
  const lists = new Set(operations.filter((op) => op.method === 'GET').map((op) => op.path));
  const segments = operation.path.split('/');
  let assignments: Array<{ values: Record<string, string>; prefix: string[] }> = [{ values: {}, prefix: [] }];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!param) {
      assignments = assignments.map((a) => ({ ...a, prefix: [...a.prefix, segment] }));
      continue;
    }
    const next: typeof assignments = [];
    for (const assignment of assignments) {
      let values: string[] = [];
      if (segments[i - 1] === 'name') values = LABEL_NAMES;
      else if (segments[i - 1] === 'id') {
        const collection = assignment.prefix.slice(0, -1);
        const template = [...segments.slice(0, collection.length)].join('/');
        const list = (target: string) => send('GET', target).catch(noReports);
        if (lists.has(template))
          values = arrayOf((await list(`${collection.join('/')}?limit=5`)).json).map((item) => String(item.id));
        else if (collection.length > 2) values = nestedIds((await list(collection.slice(0, -1).join('/'))).json);
      }
      for (const value of values.slice(0, 5))
        next.push({ values: { ...assignment.values, [param]: value }, prefix: [...assignment.prefix, value] });
    }
    assignments = next;
  }
  return assignments.map((a) => a.values);
}

/** Ids of the first array of objects with ids inside a resource (an account's linkedAdPlatformAccounts). */
function nestedIds(json: unknown): string[] {
  const resource =
    json !== null && typeof json === 'object' ? Object.values(json as Record<string, unknown>)[0] : undefined;
  if (resource === null || typeof resource !== 'object') return [];
  for (const value of Object.values(resource as Record<string, unknown>)) {
    if (Array.isArray(value) && value.some((item) => typeof (item as Listed)?.id === 'number'))
      return value.map((item) => String((item as Listed).id));
  }
  return [];
}

/**
 * A store without facts (the PostgreSQL store, until issue 38) answers the reporting collections
 * 503 reports_unavailable: they then give no ids (the answer itself was still judged by the
 * document), and their operations are exercised with generated ids only.
 */
function noReports(error: unknown): { status: number; json: unknown } {
  if (error instanceof Error && /: 503 .*"reports_unavailable"/.test(error.message)) return { status: 503, json: {} };
  throw error;
}
