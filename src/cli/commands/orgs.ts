import { createOrganization, ORGANIZATION_NAME_MAX } from '../../organizations/organizations.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, printResult, requireOption, type Command } from '../command.js';

export const orgsCreate: Command = {
  path: ['orgs', 'create'],
  summary: 'Create an organization (a tenant: its clients see only its data)',
  usage: 'adreport orgs create --name NAME [--db FILE] [--json]',
  optionHelp: ['--name NAME        the organization name (1-200 characters)'],
  options: { name: { type: 'string' } },
  async run(context) {
    const name = requireOption(context.values, 'name').trim();
    if (name.length === 0 || name.length > ORGANIZATION_NAME_MAX) throw new CliError(`--name must be 1-${ORGANIZATION_NAME_MAX} characters`, 2);
    const organization = await withAdminStore(context.dbPath, (db) => db.write((tx) => createOrganization(tx, name)));
    printResult(context, { organization });
    return 0;
  },
};
