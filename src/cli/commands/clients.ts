import { z } from 'zod';
import { disableClient, insertClient, listClients, newClientCredentials } from '../../auth/clients.js';
import { parseScopeList } from '../../auth/scopes.js';
import { SCOPES } from '../../config/config.js';
import { getOrganization } from '../../organizations/organizations.js';
import { adminCommand } from '../admin/admin-command.js';
import { CliError, parseId, printResult, requireOption } from '../command.js';

const organizationId = z.number().int().positive();

export const clientsCreate = adminCommand({
  path: ['clients', 'create'],
  summary: 'Create API credentials for an organization; the secret is shown once',
  usage: 'adreport clients create --org ID [--scopes provisioning,reporting] [--name N] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization the client acts for',
    `--scopes LIST      comma list of ${SCOPES.join(', ')} (default: all)`,
    '--name N           a label for people, e.g. the integration using it',
  ],
  options: { org: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
  parse({ values }) {
    const organizationId = parseId(requireOption(values, 'org'), 'org');
    const parsed =
      typeof values.scopes === 'string' ? parseScopeList(values.scopes) : { ok: true as const, scopes: [...SCOPES] };
    if (!parsed.ok) throw new CliError(`--scopes: unknown scope "${parsed.unknown}"; known: ${SCOPES.join(', ')}`, 2);
    return { organizationId, scopes: parsed.scopes, name: typeof values.name === 'string' ? values.name : null };
  },
  operation: {
    name: 'clients create',
    input: z.object({ organizationId, scopes: z.array(z.enum(SCOPES)), name: z.string().nullable() }),
    async run({ db }, { organizationId, scopes, name }) {
      const credentials = await newClientCredentials();
      const client = await db.write('no-report-data', async (tx) => {
        if (!(await getOrganization(tx, organizationId)))
          throw new CliError(`organization ${organizationId} does not exist`);
        return insertClient(tx, credentials, { organizationId, scopes, name });
      });
      return { clientId: client.clientId, clientSecret: client.clientSecret, organizationId, scopes: client.scopes };
    },
  },
  present: (context) => ({
    done(result) {
      printResult(context, result);
      if (!context.json)
        context.io.stderr.write('Store the secret now: only its hash is kept, it cannot be shown again.\n');
      return 0;
    },
  }),
});

export const clientsList = adminCommand({
  path: ['clients', 'list'],
  summary: "List an organization's API clients (never their secrets)",
  usage: 'adreport clients list --org ID [--db FILE] [--json]',
  optionHelp: ['--org ID           the organization'],
  options: { org: { type: 'string' } },
  parse: ({ values }) => ({ organizationId: parseId(requireOption(values, 'org'), 'org') }),
  operation: {
    name: 'clients list',
    input: z.object({ organizationId }),
    async run({ db }, { organizationId }) {
      if (!(await db.read((r) => getOrganization(r, organizationId))))
        throw new CliError(`organization ${organizationId} does not exist`);
      return { clients: await db.read((r) => listClients(r, organizationId)) };
    },
  },
});

export const clientsDisable = adminCommand({
  path: ['clients', 'disable'],
  summary: 'Disable a client: no new tokens, and its existing tokens are refused at once',
  usage: 'adreport clients disable --client-id X [--db FILE] [--json]',
  optionHelp: ['--client-id X      the client to disable'],
  notes: [
    "A server holding the file refuses the client's tokens from that moment; a server started later reads",
    'the disabled clients at its start. Servers also re-read that list every 15 s.',
  ],
  options: { 'client-id': { type: 'string' } },
  parse: ({ values }) => ({ clientId: requireOption(values, 'client-id') }),
  operation: {
    name: 'clients disable',
    input: z.object({ clientId: z.string().min(1) }),
    async run({ db, services }, { clientId }) {
      const client = await db.write('no-report-data', (tx) => disableClient(tx, clientId));
      if (!client) throw new CliError(`client ${clientId} does not exist`);
      // In the server: its in-memory list of disabled clients is re-read now, not at the next 15 s tick.
      await services.clientsDisabled();
      return { client };
    },
  },
});
