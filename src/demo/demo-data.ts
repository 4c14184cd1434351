import type { Organization } from '../organizations/organizations.js';
import type { AdPlatformType } from '../platforms/connector.js';
import { accountWriteSchema } from '../provisioning/accounts/account-schema.js';
import type { AccountService } from '../provisioning/accounts/account-service.js';
import type { MasterAccount } from '../provisioning/platform-accounts/master-account-store.js';
import type { PlatformAccountService } from '../provisioning/platform-accounts/platform-account-service.js';

export interface DemoDataServices {
  readonly accounts: AccountService;
  readonly platformAccounts: PlatformAccountService;
  /** Adds a markup period to an account (the demo shows costWithMarkup). */
  readonly addMarkup: (
    organizationId: number,
    accountId: number,
    markup: { rate: number; startDate: string; endDate: string | null },
  ) => Promise<unknown>;
}

interface DemoAccount {
  /** The body of POST /accounts (validated by the same schema before use). */
  readonly account: Readonly<Record<string, unknown>>;
  /** Which sandbox platform accounts to link: the n-th under the platform's demo master, or the n-th direct FACEBOOK account. */
  readonly links: ReadonlyArray<{ platform: AdPlatformType; index: number }>;
  readonly markup?: { rate: number; startDaysAgo: number };
}

const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  {
    account: {
      name: 'Contoso Outdoor',
      languageCode: 'de',
      countryCode: 'DE',
      currency: 'EUR',
      labels: { clientId: 'C-1001', tier: 'gold' },
      field1: 'Outdoor',
      field21: 12000,
    },
    links: [
      { platform: 'GOOGLE_ADS', index: 0 },
      { platform: 'FACEBOOK', index: 0 },
    ],
    markup: { rate: 0.15, startDaysAgo: 500 },
  },
  {
    account: {
      name: 'Northwind Traders',
      languageCode: 'en',
      countryCode: 'US',
      currency: 'USD',
      labels: { clientId: 'C-1002', tier: 'silver' },
      field1: 'Retail',
      field21: 8000,
    },
    links: [
      { platform: 'MICROSOFT_ADVERTISING', index: 0 },
      { platform: 'GOOGLE_ADS', index: 1 },
    ],
  },
  {
    account: {
      name: 'Fabrikam Home',
      languageCode: 'en',
      countryCode: 'GB',
      currency: 'GBP',
      labels: { clientId: 'C-1003', tier: 'bronze' },
      field1: 'Home',
      field21: 3000,
    },
    links: [{ platform: 'GOOGLE_ADS', index: 2 }],
    markup: { rate: 0.08, startDaysAgo: 90 },
  },
];

/**
 * Demo accounts on a fresh demo organization, made through the same services the API uses: each
 * linked to sandbox platform accounts, with autoImport on, so the first start imports their
 * campaigns and the imports fetch their history (400 days by default) in the background.
 */
export async function seedDemoData(
  services: DemoDataServices,
  organization: Organization,
  masters: readonly MasterAccount[],
  today: string,
): Promise<number[]> {
  const candidates = new Map<AdPlatformType, string[]>();
  for (const master of masters) {
    const listed = await services.platformAccounts.accountsUnderMaster(organization.id, master.id);
    candidates.set(
      master.adPlatformType,
      listed.map((a) => a.adPlatformId),
    );
  }
  candidates.set(
    'FACEBOOK',
    (await services.platformAccounts.availableDirectAccounts(organization.id, 'FACEBOOK')).map((a) => a.adPlatformId),
  );

  const accountIds: number[] = [];
  for (const demo of DEMO_ACCOUNTS) {
    const account = await services.accounts.create(
      organization.id,
      accountWriteSchema.parse({ ...demo.account, autoImport: false }),
    );
    for (const link of demo.links) {
      const adPlatformId = candidates.get(link.platform)?.[link.index];
      if (adPlatformId)
        await services.platformAccounts.link(organization.id, account.id, {
          adPlatformType: link.platform,
          adPlatformId,
          status: 'READ_WRITE',
        });
    }
    if (demo.markup) {
      const start = new Date(Date.parse(`${today}T00:00:00Z`) - demo.markup.startDaysAgo * 86_400_000)
        .toISOString()
        .slice(0, 10);
      await services.addMarkup(organization.id, account.id, {
        rate: demo.markup.rate,
        startDate: start,
        endDate: null,
      });
    }
    // Switching autoImport on after linking queues the AUTO_IMPORT that finds the linked accounts.
    await services.accounts.patch(organization.id, account.id, { autoImport: true });
    accountIds.push(account.id);
  }
  return accountIds;
}
