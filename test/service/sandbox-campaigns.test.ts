import { beforeAll, describe, expect, it } from 'vitest';
import { type CampaignDraft, type CampaignTree, type PlatformConnector } from '../../src/platforms/connector.js';
import { parseSandboxFaults, SandboxPlatforms } from '../../src/platforms/sandbox/index.js';
import { caught } from '../helpers/platform-errors.js';
import { useTempDatabase } from '../helpers/temp-database.js';

const temp = useTempDatabase('adreport-sandbox-campaigns-');

const NOW = new Date('2026-05-10T12:00:00Z');
const now = () => NOW;
const MASTER = { GOOGLE_ADS: '123-456-7890', MICROSOFT_ADVERTISING: '4711815' } as const;
type Search = keyof typeof MASTER;
const SEARCH: readonly Search[] = ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING'];
const ID_PATTERN = {
  GOOGLE_ADS: { small: /^\d{11}$/, large: /^\d{12}$/ },
  MICROSOFT_ADVERTISING: { small: /^\d{10}$/, large: /^\d{11}$/ },
} as const;

let tokens = 0;
const token = () => `token-${++tokens}`;

async function firstAccount(connector: PlatformConnector, platform: Search): Promise<string> {
  const accounts = await connector.listAccountsUnderMaster(MASTER[platform]);
  return accounts[0]!.adPlatformId;
}

function draft(overrides: Partial<CampaignDraft> = {}): CampaignDraft {
  return {
    name: 'Garden Tools | Search',
    status: 'ENABLED',
    dailyBudget: 45.5,
    adGroups: [
      {
        name: 'Hedge Trimmers',
        status: 'ENABLED',
        keywords: [
          { text: 'hedge trimmer', matchType: 'EXACT', status: 'ENABLED' },
          { text: 'buy hedge trimmer online', matchType: 'PHRASE', status: 'PAUSED' },
        ],
        ads: [
          {
            name: 'Hedge Trimmers RSA 1',
            status: 'ENABLED',
            adType: 'RESPONSIVE_SEARCH_AD',
            headline: 'Hedge Trimmers On Sale',
            description: 'Cordless and electric hedge trimmers. Free delivery.',
            finalUrl: 'https://www.example.com/hedge-trimmers',
          },
        ],
      },
      {
        name: 'Lawn Mowers',
        status: 'PAUSED',
        keywords: [{ text: 'lawn mower', matchType: 'BROAD', status: 'ENABLED' }],
        ads: [
          {
            name: 'Lawn Mowers RSA 1',
            status: 'PAUSED',
            adType: 'RESPONSIVE_SEARCH_AD',
            headline: 'Lawn Mowers For Every Garden',
            description: 'Petrol, electric and robot mowers compared.',
            finalUrl: 'https://www.example.com/lawn-mowers',
          },
        ],
      },
    ],
    ...overrides,
  };
}

/** The draft with its first ad group changed. */
function withFirstGroup(
  base: CampaignDraft,
  change: (group: CampaignDraft['adGroups'][number]) => CampaignDraft['adGroups'][number],
): CampaignDraft {
  return { ...base, adGroups: base.adGroups.map((group, index) => (index === 0 ? change(group) : group)) };
}

function withFirstAd(
  base: CampaignDraft,
  change: Partial<CampaignDraft['adGroups'][number]['ads'][number]>,
): CampaignDraft {
  return withFirstGroup(base, (group) => ({
    ...group,
    ads: group.ads.map((ad, index) => (index === 0 ? { ...ad, ...change } : ad)),
  }));
}

function withFirstKeywordText(base: CampaignDraft, text: string): CampaignDraft {
  return withFirstGroup(base, (group) => ({
    ...group,
    keywords: group.keywords.map((k, index) => (index === 0 ? { ...k, text } : k)),
  }));
}

async function refused(call: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await caught(call);
  expect(error.code).toBe('INVALID_REQUEST');
  expect(error.retryable).toBe(false);
  expect(error.message).toMatch(message);
}

/** Every id in a tree, campaign first. */
function idsOf(tree: CampaignTree): string[] {
  return [
    tree.campaign.adPlatformId,
    ...tree.adGroups.flatMap((group) => [
      group.adPlatformId,
      ...group.keywords.map((k) => k.adPlatformId),
      ...group.ads.map((a) => a.adPlatformId),
    ]),
  ];
}

/** What the draft says, in the shape of a tree without ids and dates. */
function contentOf(tree: CampaignTree): CampaignDraft {
  return {
    name: tree.campaign.name,
    status: tree.campaign.status,
    dailyBudget: tree.campaign.dailyBudget,
    adGroups: tree.adGroups.map((group) => ({
      name: group.name,
      status: group.status,
      keywords: group.keywords.map(({ text, matchType, status }) => ({ text, matchType, status })),
      ads: group.ads.map(({ name, status, adType, headline, description, finalUrl }) => ({
        name,
        status,
        adType,
        headline,
        description,
        finalUrl,
      })),
    })),
  };
}

describe('dailyBudget of catalog campaigns', () => {
  it('is present, positive, with at most 2 decimals, and the same in another instance', async () => {
    for (const platform of ['GOOGLE_ADS', 'MICROSOFT_ADVERTISING', 'FACEBOOK'] as const) {
      const connector = new SandboxPlatforms(temp.db, { now }).connector(3, platform);
      const accounts =
        platform === 'FACEBOOK'
          ? await connector.listDirectAccounts()
          : await connector.listAccountsUnderMaster(MASTER[platform]);
      const campaigns = await connector.listCampaigns(accounts[0]!.adPlatformId);
      expect(campaigns.length).toBeGreaterThan(0);
      for (const campaign of campaigns) {
        expect(typeof campaign.dailyBudget).toBe('number');
        expect(campaign.dailyBudget).toBeGreaterThanOrEqual(1);
        expect(Math.round(campaign.dailyBudget * 100) / 100).toBe(campaign.dailyBudget);
      }
      const again = await new SandboxPlatforms(temp.db, { now })
        .connector(3, platform)
        .listCampaigns(accounts[0]!.adPlatformId);
      expect(again.map((c) => c.dailyBudget)).toEqual(campaigns.map((c) => c.dailyBudget));
      const tree = await connector.fetchCampaignTree(accounts[0]!.adPlatformId, campaigns[0]!.adPlatformId);
      expect(tree.campaign.dailyBudget).toBe(campaigns[0]!.dailyBudget);
    }
  });

  it('varies between campaigns and scales with the currency (JPY budgets above EUR ones)', async () => {
    const connector = new SandboxPlatforms(temp.db, { now }).connector(4, 'GOOGLE_ADS');
    const byCurrency = new Map<string, number[]>();
    for (let m = 0; m < 25; m++) {
      const master = `100-000-${String(1000 + m)}`;
      for (const account of await connector.listAccountsUnderMaster(master)) {
        const budgets = (await connector.listCampaigns(account.adPlatformId)).map((c) => c.dailyBudget);
        byCurrency.set(account.currency, [...(byCurrency.get(account.currency) ?? []), ...budgets]);
      }
    }
    const eur = byCurrency.get('EUR') ?? [];
    expect(new Set(eur).size).toBeGreaterThan(3);
    for (const budget of eur) expect(budget).toBeLessThanOrEqual(2000);
    const jpy = byCurrency.get('JPY') ?? [];
    expect(jpy.length).toBeGreaterThan(0);
    expect(Math.min(...jpy)).toBeGreaterThan(Math.max(...eur) / 10);
  });

  it('catalog search ads keep within the limits createCampaign enforces', async () => {
    for (const platform of SEARCH) {
      const connector = new SandboxPlatforms(temp.db, { now }).connector(3, platform);
      const account = await firstAccount(connector, platform);
      for (const campaign of (await connector.listCampaigns(account)).slice(0, 4)) {
        const tree = await connector.fetchCampaignTree(account, campaign.adPlatformId);
        for (const ad of tree.adGroups.flatMap((g) => g.ads)) {
          expect(ad.headline.length).toBeLessThanOrEqual(30);
          expect(ad.description.length).toBeLessThanOrEqual(90);
        }
      }
    }
  });
});

describe('createCampaign', () => {
  it.each(SEARCH)(
    '%s: returns the draft as a tree with platform-style ids, listed and fetchable, also from a new instance',
    async (platform) => {
      const connector = new SandboxPlatforms(temp.db, { now }).connector(1, platform);
      const account = await firstAccount(connector, platform);
      const before = await connector.listCampaigns(account);
      const input = draft();
      const tree = await connector.createCampaign(account, input, token());

      expect(contentOf(tree)).toEqual(input);
      expect(tree.campaign.createdOn).toBe(NOW.toISOString().slice(0, 10));
      expect(tree.campaign.adPlatformId).toMatch(ID_PATTERN[platform].small);
      for (const group of tree.adGroups) {
        expect(group.adPlatformId).toMatch(ID_PATTERN[platform].small);
        for (const item of [...group.keywords, ...group.ads])
          expect(item.adPlatformId).toMatch(ID_PATTERN[platform].large);
      }
      const ids = idsOf(tree);
      expect(new Set(ids).size).toBe(ids.length);
      // No created id collides with a catalog id of the account.
      const catalogTrees = await Promise.all(
        before.slice(0, 3).map((c) => connector.fetchCampaignTree(account, c.adPlatformId)),
      );
      const catalogIds = new Set(catalogTrees.flatMap(idsOf));
      expect(ids.filter((id) => catalogIds.has(id))).toEqual([]);

      const listed = await connector.listCampaigns(account);
      expect(listed).toHaveLength(before.length + 1);
      expect(listed).toContainEqual(tree.campaign);
      expect(await connector.fetchCampaignTree(account, tree.campaign.adPlatformId)).toEqual(tree);

      const fresh = new SandboxPlatforms(temp.db, { now }).connector(1, platform);
      expect(await fresh.fetchCampaignTree(account, tree.campaign.adPlatformId)).toEqual(tree);
      expect(await fresh.listCampaigns(account)).toEqual(listed);
      // Not visible in another account nor to another organization.
      const other = (await connector.listAccountsUnderMaster(MASTER[platform]))[1]!.adPlatformId;
      expect((await caught(connector.fetchCampaignTree(other, tree.campaign.adPlatformId))).code).toBe('NOT_FOUND');
      expect(
        (
          await caught(
            new SandboxPlatforms(temp.db, { now })
              .connector(2, platform)
              .fetchCampaignTree(account, tree.campaign.adPlatformId),
          )
        ).code,
      ).toBe('NOT_FOUND');
    },
  );

  it('is idempotent per request token and account: the first campaign comes back unchanged', async () => {
    const connector = new SandboxPlatforms(temp.db, { now }).connector(1, 'GOOGLE_ADS');
    const [account, other] = (await connector.listAccountsUnderMaster(MASTER.GOOGLE_ADS)).map((a) => a.adPlatformId);
    const shared = token();
    const first = await connector.createCampaign(account!, draft(), shared);
    const count = (await connector.listCampaigns(account!)).length;
    const again = await new SandboxPlatforms(temp.db, { now: () => new Date(NOW.getTime() + 3 * 86_400_000) })
      .connector(1, 'GOOGLE_ADS')
      .createCampaign(account!, draft({ name: 'Something else', dailyBudget: 99 }), shared);
    expect(again).toEqual(first);
    expect(await connector.listCampaigns(account!)).toHaveLength(count);
    // Another token makes another campaign; the same token in another account too.
    const second = await connector.createCampaign(account!, draft(), token());
    expect(second.campaign.adPlatformId).not.toBe(first.campaign.adPlatformId);
    const elsewhere = await connector.createCampaign(other!, draft(), shared);
    expect(elsewhere.campaign.adPlatformId).not.toBe(first.campaign.adPlatformId);
    const concurrent = token();
    const [a, b] = await Promise.all([
      connector.createCampaign(account!, draft(), concurrent),
      connector.createCampaign(account!, draft(), concurrent),
    ]);
    expect(a).toEqual(b);
  });

  it('refuses FACEBOOK, unknown accounts and an empty token', async () => {
    const platforms = new SandboxPlatforms(temp.db, { now });
    const facebook = platforms.connector(1, 'FACEBOOK');
    const fbAccount = (await facebook.listDirectAccounts())[0]!.adPlatformId;
    await refused(
      facebook.createCampaign(fbAccount, draft(), token()),
      /^campaign creation through the API is not supported for FACEBOOK in the sandbox$/,
    );
    const google = platforms.connector(1, 'GOOGLE_ADS');
    expect((await caught(google.createCampaign('999-999-9999', draft(), token()))).code).toBe('NOT_FOUND');
    const account = await firstAccount(google, 'GOOGLE_ADS');
    await refused(google.createCampaign(account, draft(), ''), /request token/);
  });

  it('runs the fault checks first', async () => {
    const platforms = new SandboxPlatforms(temp.db, { now });
    const connector = platforms.connector(5, 'MICROSOFT_ADVERTISING');
    const account = await firstAccount(connector, 'MICROSOFT_ADVERTISING');
    platforms.setFaults(5, 'MICROSOFT_ADVERTISING', { failNext: 1 });
    const error = await caught(connector.createCampaign(account, draft(), token()));
    expect(error.code).toBe('UNAVAILABLE');
    platforms.setFaults(5, 'MICROSOFT_ADVERTISING', { revoked: [account] });
    expect((await caught(connector.createCampaign(account, draft(), token()))).code).toBe('ACCESS_DENIED');
  });
});

describe('draft rules', () => {
  let google: { connector: PlatformConnector; account: string };
  let microsoft: { connector: PlatformConnector; account: string };
  beforeAll(async () => {
    const platforms = new SandboxPlatforms(temp.db, { now });
    const g = platforms.connector(6, 'GOOGLE_ADS');
    const m = platforms.connector(6, 'MICROSOFT_ADVERTISING');
    google = { connector: g, account: await firstAccount(g, 'GOOGLE_ADS') };
    microsoft = { connector: m, account: await firstAccount(m, 'MICROSOFT_ADVERTISING') };
  });

  it('campaign name: 255 characters on GOOGLE_ADS, 128 on MICROSOFT_ADVERTISING', async () => {
    const name129 = `Campaign ${'x'.repeat(120)}`;
    expect(name129).toHaveLength(129);
    const accepted = await google.connector.createCampaign(google.account, draft({ name: name129 }), token());
    expect(accepted.campaign.name).toBe(name129);
    await refused(
      microsoft.connector.createCampaign(microsoft.account, draft({ name: name129 }), token()),
      /campaign name has 129 characters; at most 128/,
    );
    await microsoft.connector.createCampaign(microsoft.account, draft({ name: name129.slice(0, 128) }), token());
    const name256 = 'y'.repeat(256);
    await refused(
      google.connector.createCampaign(google.account, draft({ name: name256 }), token()),
      /campaign name has 256 characters; at most 255/,
    );
    await google.connector.createCampaign(google.account, draft({ name: name256.slice(0, 255) }), token());
    await refused(
      google.connector.createCampaign(google.account, draft({ name: '  ' }), token()),
      /campaign name is empty/,
    );
  });

  it('keyword text: 80 characters on GOOGLE_ADS, 100 on MICROSOFT_ADVERTISING, the keyword named', async () => {
    const text = `garden ${'z'.repeat(83)}`;
    expect(text).toHaveLength(90);
    await refused(
      google.connector.createCampaign(google.account, withFirstKeywordText(draft(), text), token()),
      new RegExp(`ad group 1 "Hedge Trimmers", keyword 1 "${text}": the keyword text has 90 characters; at most 80`),
    );
    const accepted = await microsoft.connector.createCampaign(
      microsoft.account,
      withFirstKeywordText(draft(), text),
      token(),
    );
    expect(accepted.adGroups[0]!.keywords[0]!.text).toBe(text);
    await refused(
      microsoft.connector.createCampaign(microsoft.account, withFirstKeywordText(draft(), 'k'.repeat(101)), token()),
      /keyword text has 101 characters; at most 100/,
    );
    await google.connector.createCampaign(google.account, withFirstKeywordText(draft(), 'k'.repeat(80)), token());
  });

  it.each(SEARCH)(
    '%s: headline at most 30, description at most 90, budget at least 1, known match types, http(s) final URL',
    async (platform) => {
      const { connector, account } = platform === 'GOOGLE_ADS' ? google : microsoft;
      await refused(
        connector.createCampaign(account, withFirstAd(draft(), { headline: 'h'.repeat(31) }), token()),
        /ad 1 "Hedge Trimmers RSA 1": the headline has 31 characters; at most 30/,
      );
      await connector.createCampaign(account, withFirstAd(draft(), { headline: 'h'.repeat(30) }), token());
      await refused(
        connector.createCampaign(account, withFirstAd(draft(), { description: 'd'.repeat(91) }), token()),
        /the description has 91 characters; at most 90/,
      );
      await connector.createCampaign(account, withFirstAd(draft(), { description: 'd'.repeat(90) }), token());
      await refused(
        connector.createCampaign(account, draft({ dailyBudget: 0.99 }), token()),
        /daily budget 0\.99 is not a number of at least 1/,
      );
      await refused(connector.createCampaign(account, draft({ dailyBudget: 12.345 }), token()), /more than 2 decimals/);
      expect((await connector.createCampaign(account, draft({ dailyBudget: 1 }), token())).campaign.dailyBudget).toBe(
        1,
      );
      const badMatch = withFirstGroup(draft(), (g) => ({
        ...g,
        keywords: [{ text: 'shears', matchType: 'MODIFIED_BROAD' as 'BROAD', status: 'ENABLED' }],
      }));
      await refused(
        connector.createCampaign(account, badMatch, token()),
        /keyword 1 "shears": match type MODIFIED_BROAD is not one of EXACT, PHRASE, BROAD/,
      );
      await refused(
        connector.createCampaign(account, withFirstAd(draft(), { finalUrl: 'www.example.com' }), token()),
        /final URL "www\.example\.com"/,
      );
      await refused(
        connector.createCampaign(account, withFirstAd(draft(), { adType: 'IMAGE' }), token()),
        /ad type IMAGE cannot be created/,
      );
    },
  );

  it('EXPANDED_TEXT_AD: refused on GOOGLE_ADS, accepted on MICROSOFT_ADVERTISING', async () => {
    const eta = withFirstAd(draft(), { adType: 'EXPANDED_TEXT_AD' });
    await refused(
      google.connector.createCampaign(google.account, eta, token()),
      /ad 1 "Hedge Trimmers RSA 1": ad type EXPANDED_TEXT_AD cannot be created on GOOGLE_ADS; it accepts RESPONSIVE_SEARCH_AD$/,
    );
    const created = await microsoft.connector.createCampaign(microsoft.account, eta, token());
    expect(created.adGroups[0]!.ads[0]!.adType).toBe('EXPANDED_TEXT_AD');
  });

  it('a refused draft creates nothing, and its token stays free', async () => {
    const before = await google.connector.listCampaigns(google.account);
    const reused = token();
    await refused(google.connector.createCampaign(google.account, draft({ dailyBudget: 0 }), reused), /daily budget/);
    expect(await google.connector.listCampaigns(google.account)).toEqual(before);
    const created = await google.connector.createCampaign(google.account, draft(), reused);
    expect(created.campaign.dailyBudget).toBe(draft().dailyBudget);
  });
});

describe('rejectCampaigns fault', () => {
  it('refuses create and update of the named campaigns only, permanently, until switched off', async () => {
    const platforms = new SandboxPlatforms(temp.db, { now });
    const connector = platforms.connector(7, 'GOOGLE_ADS');
    const account = await firstAccount(connector, 'GOOGLE_ADS');
    const kept = await connector.createCampaign(account, draft({ name: 'Kept' }), token());
    platforms.setFaults(7, 'GOOGLE_ADS', { rejectCampaigns: ['Doomed'] });
    for (let i = 0; i < 2; i++)
      await refused(
        connector.createCampaign(account, draft({ name: 'Doomed' }), token()),
        /^the platform refused campaign Doomed$/,
      );
    await refused(
      connector.updateCampaign(account, kept.campaign.adPlatformId, draft({ name: 'Doomed' })),
      /^the platform refused campaign Doomed$/,
    );
    await connector.createCampaign(account, draft({ name: 'Fine' }), token());
    // Another organization is not affected; the '*' scope applies to all.
    const other = platforms.connector(8, 'GOOGLE_ADS');
    const otherAccount = await firstAccount(other, 'GOOGLE_ADS');
    await other.createCampaign(otherAccount, draft({ name: 'Doomed' }), token());
    platforms.setFaults('*', 'GOOGLE_ADS', { rejectCampaigns: ['Everywhere'] });
    await refused(
      other.createCampaign(otherAccount, draft({ name: 'Everywhere' }), token()),
      /refused campaign Everywhere/,
    );
    platforms.clearFaults();
    await connector.createCampaign(account, draft({ name: 'Doomed' }), token());
  });

  it('comes from the constructor config and from ADREPORT_SANDBOX_FAULTS', async () => {
    const config = parseSandboxFaults('{"BING_ADS":{"rejectCampaigns":["Nope"]}}');
    expect(config).toEqual({ MICROSOFT_ADVERTISING: { rejectCampaigns: ['Nope'] } });
    expect(() => parseSandboxFaults('{"GOOGLE_ADS":{"rejectCampaigns":"Nope"}}')).toThrow(
      /GOOGLE_ADS\.rejectCampaigns must be a list of campaign names/,
    );
    const connector = new SandboxPlatforms(temp.db, { now, faults: config }).connector(7, 'MICROSOFT_ADVERTISING');
    const account = await firstAccount(connector, 'MICROSOFT_ADVERTISING');
    await refused(connector.createCampaign(account, draft({ name: 'Nope' }), token()), /refused campaign Nope/);
  });
});

describe('updateCampaign', () => {
  it.each(SEARCH)(
    '%s: replaces the tree, keeps the campaign id and the ids by position, new ids for added items',
    async (platform) => {
      const connector = new SandboxPlatforms(temp.db, { now }).connector(9, platform);
      const account = await firstAccount(connector, platform);
      const original = await connector.createCampaign(account, draft(), token());
      const base = draft();
      const [first, second] = base.adGroups;
      const replacement: CampaignDraft = {
        name: 'Garden Tools | Search v2',
        status: 'PAUSED',
        dailyBudget: 80,
        adGroups: [
          {
            ...first!,
            name: 'Hedge Trimmers v2',
            keywords: [...first!.keywords, { text: 'cordless hedge trimmer', matchType: 'EXACT', status: 'ENABLED' }],
            ads: [{ ...first!.ads[0]!, headline: 'New Hedge Trimmers' }],
          },
          { ...second!, keywords: [] },
          {
            name: 'Leaf Blowers',
            status: 'ENABLED',
            keywords: [{ text: 'leaf blower', matchType: 'PHRASE', status: 'ENABLED' }],
            ads: [],
          },
        ],
      };
      const later = new SandboxPlatforms(temp.db, { now: () => new Date(NOW.getTime() + 5 * 86_400_000) }).connector(
        9,
        platform,
      );
      const updated = await later.updateCampaign(account, original.campaign.adPlatformId, replacement);

      expect(contentOf(updated)).toEqual(replacement);
      expect(updated.campaign.adPlatformId).toBe(original.campaign.adPlatformId);
      expect(updated.campaign.createdOn).toBe(original.campaign.createdOn);
      const [g0, g1, g2] = updated.adGroups;
      const [o0, o1] = original.adGroups;
      expect(g0!.adPlatformId).toBe(o0!.adPlatformId);
      expect(g0!.keywords.slice(0, 2).map((k) => k.adPlatformId)).toEqual(o0!.keywords.map((k) => k.adPlatformId));
      expect(g0!.ads[0]!.adPlatformId).toBe(o0!.ads[0]!.adPlatformId);
      expect(g1!.adPlatformId).toBe(o1!.adPlatformId);
      const oldIds = new Set(idsOf(original));
      expect(oldIds.has(g0!.keywords[2]!.adPlatformId)).toBe(false);
      expect(oldIds.has(g2!.adPlatformId)).toBe(false);
      expect(oldIds.has(g2!.keywords[0]!.adPlatformId)).toBe(false);
      expect(new Set(idsOf(updated)).size).toBe(idsOf(updated).length);

      expect(await connector.fetchCampaignTree(account, original.campaign.adPlatformId)).toEqual(updated);
      const listed = (await connector.listCampaigns(account)).filter(
        (c) => c.adPlatformId === original.campaign.adPlatformId,
      );
      expect(listed).toEqual([updated.campaign]);
    },
  );

  it('validates like create and leaves the campaign as it was when refused', async () => {
    const connector = new SandboxPlatforms(temp.db, { now }).connector(9, 'GOOGLE_ADS');
    const account = await firstAccount(connector, 'GOOGLE_ADS');
    const original = await connector.createCampaign(account, draft(), token());
    await refused(
      connector.updateCampaign(
        account,
        original.campaign.adPlatformId,
        withFirstAd(draft(), { adType: 'EXPANDED_TEXT_AD' }),
      ),
      /EXPANDED_TEXT_AD cannot be created on GOOGLE_ADS/,
    );
    await refused(
      connector.updateCampaign(account, original.campaign.adPlatformId, draft({ dailyBudget: 0.5 })),
      /daily budget/,
    );
    expect(await connector.fetchCampaignTree(account, original.campaign.adPlatformId)).toEqual(original);
  });

  it('refuses catalog campaigns, NOT_FOUND for unknown ones and other accounts', async () => {
    const connector = new SandboxPlatforms(temp.db, { now }).connector(9, 'MICROSOFT_ADVERTISING');
    const [account, other] = (await connector.listAccountsUnderMaster(MASTER.MICROSOFT_ADVERTISING)).map(
      (a) => a.adPlatformId,
    );
    const catalog = (await connector.listCampaigns(account!))[0]!;
    await refused(
      connector.updateCampaign(account!, catalog.adPlatformId, draft()),
      /^only campaigns created through the API can be replaced in the sandbox$/,
    );
    expect((await caught(connector.updateCampaign(account!, '1234567890', draft()))).code).toBe('NOT_FOUND');
    const created = await connector.createCampaign(account!, draft(), token());
    expect((await caught(connector.updateCampaign(other!, created.campaign.adPlatformId, draft()))).code).toBe(
      'NOT_FOUND',
    );
    expect((await caught(connector.updateCampaign(other!, catalog.adPlatformId, draft()))).code).toBe('NOT_FOUND');
  });
});

describe('pushChange on created campaigns', () => {
  it('changes status and names in the stored tree; a later update replaces them', async () => {
    const connector = new SandboxPlatforms(temp.db, { now }).connector(10, 'GOOGLE_ADS');
    const account = await firstAccount(connector, 'GOOGLE_ADS');
    const tree = await connector.createCampaign(account, draft(), token());
    const group = tree.adGroups[0]!;
    await connector.pushChange(account, {
      kind: 'SET_STATUS',
      entity: 'CAMPAIGN',
      adPlatformId: tree.campaign.adPlatformId,
      status: 'PAUSED',
    });
    await connector.pushChange(account, {
      kind: 'RENAME',
      entity: 'AD_GROUP',
      adPlatformId: group.adPlatformId,
      name: 'Renamed',
    });
    await connector.pushChange(account, {
      kind: 'SET_STATUS',
      entity: 'KEYWORD',
      adPlatformId: group.keywords[0]!.adPlatformId,
      status: 'REMOVED',
    });
    const changed = await connector.fetchCampaignTree(account, tree.campaign.adPlatformId);
    expect(changed.campaign.status).toBe('PAUSED');
    expect(changed.adGroups[0]!.name).toBe('Renamed');
    expect(changed.adGroups[0]!.keywords[0]!.status).toBe('REMOVED');
    expect(
      (await connector.listCampaigns(account)).find((c) => c.adPlatformId === tree.campaign.adPlatformId)?.status,
    ).toBe('PAUSED');
    // An id of the wrong kind is unknown.
    expect(
      (
        await caught(
          connector.pushChange(account, {
            kind: 'SET_STATUS',
            entity: 'AD',
            adPlatformId: group.adPlatformId,
            status: 'PAUSED',
          }),
        )
      ).code,
    ).toBe('NOT_FOUND');
    const replaced = await connector.updateCampaign(account, tree.campaign.adPlatformId, draft());
    expect(contentOf(replaced)).toEqual(draft());
  });
});
