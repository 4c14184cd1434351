import { z } from 'zod';
import { createOrganization, ORGANIZATION_NAME_MAX } from '../../organizations/organizations.js';
import { adminCommand } from '../admin/admin-command.js';
import { CliError, requireOption } from '../command.js';

export const orgsCreate = adminCommand({
  path: ['orgs', 'create'],
  summary: 'Create an organization (a tenant: its clients see only its data)',
  usage: 'adreport orgs create --name NAME [--db FILE] [--json]',
  optionHelp: ['--name NAME        the organization name (1-200 characters)'],
  notes: ['A --db that does not exist is created: the first organization starts a new installation.'],
  options: { name: { type: 'string' } },
  // The first organization of a new installation is how a database file starts.
  createsFile: true,
  parse(context) {
    const name = requireOption(context.values, 'name').trim();
    if (name.length === 0 || name.length > ORGANIZATION_NAME_MAX)
      throw new CliError(`--name must be 1-${ORGANIZATION_NAME_MAX} characters`, 2);
    return { name };
  },
  operation: {
    name: 'orgs create',
    input: z.object({ name: z.string().min(1).max(ORGANIZATION_NAME_MAX) }),
    async run({ db }, { name }) {
      return { organization: await db.write('no-report-data', (tx) => createOrganization(tx, name)) };
    },
  },
});
