import type { IdempotentRequest, JobQueue, StoredJob } from '../job-queue.js';
import type { AdPlatformType, PlatformAccount, PlatformDirectory } from '../../platforms/connector.js';
import { recordChange } from '../../changes/change-log.js';
import { representationTag, type Precondition } from '../../shared/entity-tag.js';
import { conflict, notFound, unprocessable } from '../../shared/errors.js';
import type { Executor } from '../../store/database.js';
import type { Store } from '../../store/store.js';
import { accountExists } from '../accounts/account-store.js';
import { getMasterAccount, listMasterAccounts, type MasterAccount } from './master-account-store.js';
import { platformFailureToApi } from './platform-errors.js';
import {
  deleteLink,
  getKnownPlatformAccount,
  getLink,
  insertLink,
  linkedPlatformIds,
  listKnownPlatformAccounts,
  setLinkStatus,
  upsertPlatformAccount,
  type KnownPlatformAccount,
  type LinkedPlatformAccount,
  type LinkStatus,
} from './platform-account-store.js';

export interface PlatformAccountListing extends PlatformAccount {
  /** Linked to at least one account of the organization. */
  readonly linked: boolean;
}

export interface NewAccountRequest {
  readonly name: string;
  readonly currency: string;
  readonly timeZone: string;
}

/** The strong ETag of a link (the linked form of spec 2.2: its status and the platform account's name included). */
export function linkTag(link: LinkedPlatformAccount): string {
  return representationTag(link);
}

/** Master accounts, platform accounts and their links to accounts, for one organization at a time. */
export class PlatformAccountService {
  constructor(
    private readonly db: Store,
    private readonly platforms: PlatformDirectory,
    private readonly jobs: JobQueue,
  ) {}

  listMasters(organizationId: number, page: { limit: number; offset: number }) {
    return this.db.read((r) => listMasterAccounts(r, organizationId, {}, page));
  }

  async getMaster(organizationId: number, id: number): Promise<MasterAccount> {
    const master = await this.db.read((r) => getMasterAccount(r, organizationId, id));
    if (!master) throw notFound(`No ad platform master account with id ${id}.`);
    return master;
  }

  /** Asks the platform, marks what the organization already linked. */
  async accountsUnderMaster(organizationId: number, masterId: number): Promise<PlatformAccountListing[]> {
    const master = await this.getMaster(organizationId, masterId);
    const accounts = await this.platforms
      .connector(organizationId, master.adPlatformType)
      .listAccountsUnderMaster(master.adPlatformId)
      .catch((error: unknown) => platformFailureToApi(error, 'id'));
    return this.markLinked(organizationId, master.adPlatformType, accounts);
  }

  async availableDirectAccounts(organizationId: number, type: AdPlatformType): Promise<PlatformAccountListing[]> {
    const accounts = await this.platforms
      .connector(organizationId, type)
      .listDirectAccounts()
      .catch((error: unknown) => platformFailureToApi(error, 'adPlatformType'));
    return this.markLinked(organizationId, type, accounts);
  }

  /** Queues CREATE_ADPLATFORM_ACCOUNT; the job asks the platform and registers the result. */
  async requestNewAccount(
    organizationId: number,
    masterId: number,
    request: NewAccountRequest,
    idempotency?: IdempotentRequest,
  ): Promise<StoredJob> {
    const master = await this.getMaster(organizationId, masterId);
    const job = await this.db.write('no-report-data', (tx) =>
      this.jobs.enqueueIn(
        tx,
        organizationId,
        'CREATE_ADPLATFORM_ACCOUNT',
        { masterAccountId: master.id, adPlatformAccount: { ...request } },
        idempotency,
      ),
    );
    this.jobs.started();
    return job;
  }

  listKnown(
    organizationId: number,
    filter: { type?: AdPlatformType | undefined },
    page: { limit: number; offset: number },
  ) {
    return this.db.read((r) => listKnownPlatformAccounts(r, organizationId, filter, page));
  }

  async getKnown(organizationId: number, id: number): Promise<KnownPlatformAccount> {
    const account = await this.db.read((r) => getKnownPlatformAccount(r, organizationId, id));
    if (!account) throw notFound(`No ad platform account with id ${id}.`);
    return account;
  }

  /**
   * Links a platform account to an account. The platform must show it to this organization:
   * under one of its master accounts (search platforms) or among its direct accounts (FACEBOOK).
   */
  async link(
    organizationId: number,
    accountId: number,
    request: { adPlatformType: AdPlatformType; adPlatformId: string; status: LinkStatus },
  ): Promise<LinkedPlatformAccount> {
    await this.requireAccount(organizationId, accountId);
    const { adPlatformType: type, adPlatformId } = request;
    const connector = this.platforms.connector(organizationId, type);
    if (!connector.isWellFormedAccountId(adPlatformId)) {
      throw unprocessable(`"${adPlatformId}" is not a ${type} account id.`, [
        { field: 'adPlatformAccount.adPlatformId', code: 'invalid_format', message: `not a ${type} account id` },
      ]);
    }
    const found = await this.findAtPlatform(organizationId, type, adPlatformId).catch((error: unknown) =>
      platformFailureToApi(error, 'adPlatformAccount.adPlatformId'),
    );
    if (!found) {
      const where =
        type === 'FACEBOOK'
          ? 'among the ad accounts this organization may use'
          : 'under any master account linked to this organization';
      throw unprocessable(`${type} shows no account ${adPlatformId} ${where}.`, [
        { field: 'adPlatformAccount.adPlatformId', code: 'unknown_at_platform', message: `not found ${where}` },
      ]);
    }
    return this.db.write({ organizationId }, async (tx) => {
      const platformAccountId = await upsertPlatformAccount(
        tx,
        organizationId,
        type,
        found.account,
        found.masterAccountId,
      );
      if (!(await insertLink(tx, accountId, platformAccountId, request.status))) {
        throw conflict('already_linked', `${type} account ${adPlatformId} is already linked to account ${accountId}.`);
      }
      await recordChange(tx, { organizationId, kind: 'LINK_CHANGED', accountId, platformAccountId });
      return {
        id: platformAccountId,
        name: found.account.name,
        adPlatformType: type,
        status: request.status,
        adPlatformId,
      };
    });
  }

  /** One link of the account. */
  async getLink(organizationId: number, accountId: number, platformAccountId: number): Promise<LinkedPlatformAccount> {
    await this.requireAccount(organizationId, accountId);
    const link = await this.db.read((r) => getLink(r, accountId, platformAccountId));
    if (!link) throw linkNotFound(accountId, platformAccountId);
    return link;
  }

  async setStatus(
    organizationId: number,
    accountId: number,
    platformAccountId: number,
    status: LinkStatus,
    precondition?: Precondition,
  ): Promise<LinkedPlatformAccount> {
    await this.requireAccount(organizationId, accountId);
    const known = await this.db.write({ organizationId }, async (tx) => {
      if (!(await linkPasses(tx, accountId, platformAccountId, precondition))) return undefined;
      if (!(await setLinkStatus(tx, accountId, platformAccountId, status))) return undefined;
      await recordChange(tx, { organizationId, kind: 'LINK_CHANGED', accountId, platformAccountId });
      return getKnownPlatformAccount(tx, organizationId, platformAccountId);
    });
    if (!known) throw linkNotFound(accountId, platformAccountId);
    return {
      id: known.id,
      name: known.name,
      adPlatformType: known.adPlatformType,
      status,
      adPlatformId: known.adPlatformId,
    };
  }

  async unlink(
    organizationId: number,
    accountId: number,
    platformAccountId: number,
    precondition?: Precondition,
  ): Promise<void> {
    await this.requireAccount(organizationId, accountId);
    const removed = await this.db.write({ organizationId }, async (tx) => {
      if (!(await linkPasses(tx, accountId, platformAccountId, precondition))) return false;
      const deleted = await deleteLink(tx, accountId, platformAccountId);
      if (deleted) await recordChange(tx, { organizationId, kind: 'LINK_CHANGED', accountId, platformAccountId });
      return deleted;
    });
    if (!removed) throw linkNotFound(accountId, platformAccountId);
  }

  private async findAtPlatform(
    organizationId: number,
    type: AdPlatformType,
    adPlatformId: string,
  ): Promise<{ account: PlatformAccount; masterAccountId: number | null } | undefined> {
    const connector = this.platforms.connector(organizationId, type);
    if (type === 'FACEBOOK') {
      const account = (await connector.listDirectAccounts()).find((a) => a.adPlatformId === adPlatformId);
      return account ? { account, masterAccountId: null } : undefined;
    }
    const { masters } = await this.db.read((r) => listMasterAccounts(r, organizationId, { type }));
    for (const master of masters) {
      const account = (await connector.listAccountsUnderMaster(master.adPlatformId)).find(
        (a) => a.adPlatformId === adPlatformId,
      );
      if (account) return { account, masterAccountId: master.id };
    }
    return undefined;
  }

  private async markLinked(
    organizationId: number,
    type: AdPlatformType,
    accounts: PlatformAccount[],
  ): Promise<PlatformAccountListing[]> {
    const linked = await this.db.read((r) => linkedPlatformIds(r, organizationId, type));
    return accounts.map((account) => ({ ...account, linked: linked.has(account.adPlatformId) }));
  }

  private async requireAccount(organizationId: number, accountId: number): Promise<void> {
    if (!(await this.db.read((r) => accountExists(r, organizationId, accountId))))
      throw notFound(`No account with id ${accountId}.`);
  }
}

/**
 * A conditional write's check against the link as stored in this transaction; false when there is
 * no such link (the caller's 404). Without a precondition nothing is read.
 */
async function linkPasses(
  tx: Executor,
  accountId: number,
  platformAccountId: number,
  precondition: Precondition | undefined,
): Promise<boolean> {
  if (!precondition) return true;
  const current = await getLink(tx, accountId, platformAccountId);
  if (!current) return false;
  precondition(linkTag(current));
  return true;
}

function linkNotFound(accountId: number, platformAccountId: number) {
  return notFound(`Ad platform account ${platformAccountId} is not linked to account ${accountId}.`);
}
