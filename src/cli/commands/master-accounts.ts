import { ACCEPTED_PLATFORM_NAMES, parsePlatformType } from '../../platforms/platform-types.js';
import { SandboxPlatforms } from '../../platforms/sandbox/index.js';
import { linkMasterAccount, MasterAccountLinkError } from '../../provisioning/platform-accounts/master-account-linking.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, parseId, printResult, requireOption, type Command } from '../command.js';

export const masterAccountsLink: Command = {
  path: ['master-accounts', 'link'],
  summary: 'Link a manager (GOOGLE_ADS) or reseller (MICROSOFT_ADVERTISING) account to an organization',
  usage: 'adreport master-accounts link --org ID --platform GOOGLE_ADS|MICROSOFT_ADVERTISING --platform-id X [--name N] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization',
    '--platform P       GOOGLE_ADS (kind MANAGER) or MICROSOFT_ADVERTISING (kind RESELLER); FACEBOOK has none',
    '--platform-id X    the id at the platform: GOOGLE_ADS 123-456-7890, MICROSOFT_ADVERTISING a numeric customer id',
    '--name N           a display name (default: the name the platform reports)',
  ],
  options: { org: { type: 'string' }, platform: { type: 'string' }, 'platform-id': { type: 'string' }, name: { type: 'string' } },
  async run(context) {
    const organizationId = parseId(requireOption(context.values, 'org'), 'org');
    const platformText = requireOption(context.values, 'platform');
    const platform = parsePlatformType(platformText);
    if (!platform) throw new CliError(`--platform must be one of ${ACCEPTED_PLATFORM_NAMES.join(', ')}, not "${platformText}"`, 2);
    const adPlatformId = requireOption(context.values, 'platform-id');
    const name = typeof context.values.name === 'string' && context.values.name !== '' ? context.values.name : undefined;
    const master = await withAdminStore(context.dbPath, async (db) => {
      const platforms = new SandboxPlatforms(db, { now: () => new Date() });
      try {
        return await linkMasterAccount(db, platforms, { organizationId, platform, adPlatformId, name });
      } catch (error) {
        if (error instanceof MasterAccountLinkError) throw new CliError(error.message);
        throw error;
      }
    });
    printResult(context, { adPlatformMasterAccount: master });
    return 0;
  },
};
