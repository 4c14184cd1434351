import { z } from 'zod';
import { AD_PLATFORM_TYPES } from '../../platforms/connector.js';
import { ACCEPTED_PLATFORM_NAMES, parsePlatformType } from '../../platforms/platform-types.js';
import {
  linkMasterAccount,
  MasterAccountLinkError,
} from '../../provisioning/platform-accounts/master-account-linking.js';
import { adminCommand } from '../admin/admin-command.js';
import { CliError, parseId, requireOption } from '../command.js';

export const masterAccountsLink = adminCommand({
  path: ['master-accounts', 'link'],
  summary: 'Link a manager (GOOGLE_ADS) or reseller (MICROSOFT_ADVERTISING) account to an organization',
  usage:
    'adreport master-accounts link --org ID --platform GOOGLE_ADS|MICROSOFT_ADVERTISING --platform-id X [--name N] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization',
    '--platform P       GOOGLE_ADS (kind MANAGER) or MICROSOFT_ADVERTISING (kind RESELLER); FACEBOOK has none',
    '--platform-id X    the id at the platform: GOOGLE_ADS 123-456-7890, MICROSOFT_ADVERTISING a numeric customer id',
    '--name N           a display name (default: the name the platform reports)',
  ],
  options: {
    org: { type: 'string' },
    platform: { type: 'string' },
    'platform-id': { type: 'string' },
    name: { type: 'string' },
  },
  parse({ values }) {
    const organizationId = parseId(requireOption(values, 'org'), 'org');
    const platformText = requireOption(values, 'platform');
    const platform = parsePlatformType(platformText);
    if (!platform)
      throw new CliError(`--platform must be one of ${ACCEPTED_PLATFORM_NAMES.join(', ')}, not "${platformText}"`, 2);
    const adPlatformId = requireOption(values, 'platform-id');
    const name = typeof values.name === 'string' && values.name !== '' ? values.name : null;
    return { organizationId, platform, adPlatformId, name };
  },
  operation: {
    name: 'master-accounts link',
    input: z.object({
      organizationId: z.number().int().positive(),
      platform: z.enum(AD_PLATFORM_TYPES),
      adPlatformId: z.string().min(1),
      name: z.string().min(1).nullable(),
    }),
    async run({ db, services }, { organizationId, platform, adPlatformId, name }) {
      try {
        return {
          adPlatformMasterAccount: await linkMasterAccount(db, services.platforms, {
            organizationId,
            platform,
            adPlatformId,
            name: name ?? undefined,
          }),
        };
      } catch (error) {
        if (error instanceof MasterAccountLinkError) throw new CliError(error.message);
        throw error;
      }
    },
  },
});
