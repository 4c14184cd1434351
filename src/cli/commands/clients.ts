import { disableClient, insertClient, listClients, newClientCredentials } from '../../auth/clients.js';
import { parseScopeList } from '../../auth/scopes.js';
import { SCOPES } from '../../config/config.js';
import { getOrganization } from '../../organizations/organizations.js';
import { withAdminStore } from '../admin-store.js';
import { CliError, parseId, printResult, requireOption, type Command } from '../command.js';

export const clientsCreate: Command = {
  path: ['clients', 'create'],
  summary: 'Create API credentials for an organization; the secret is shown once',
  usage: 'adreport clients create --org ID [--scopes provisioning,reporting] [--name N] [--db FILE] [--json]',
  optionHelp: [
    '--org ID           the organization the client acts for',
    `--scopes LIST      comma list of ${SCOPES.join(', ')} (default: all)`,
    '--name N           a label for people, e.g. the integration using it',
  ],
  options: { org: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
  async run(context) {
    const organizationId = parseId(requireOption(context.values, 'org'), 'org');
    const scopesText = context.values.scopes;
    const parsed = typeof scopesText === 'string' ? parseScopeList(scopesText) : { ok: true as const, scopes: [...SCOPES] };
    if (!parsed.ok) throw new CliError(`--scopes: unknown scope "${parsed.unknown}"; known: ${SCOPES.join(', ')}`, 2);
    const name = typeof context.values.name === 'string' ? context.values.name : null;
    const credentials = await newClientCredentials();
    const client = await withAdminStore(context.dbPath, (db) =>
      db.write(async (tx) => {
        if (!(await getOrganization(tx, organizationId))) throw new CliError(`organization ${organizationId} does not exist`);
        return insertClient(tx, credentials, { organizationId, scopes: parsed.scopes, name });
      }),
    );
    printResult(context, { clientId: client.clientId, clientSecret: client.clientSecret, organizationId, scopes: client.scopes });
    if (!context.json) context.io.stderr.write('Store the secret now: only its hash is kept, it cannot be shown again.\n');
    return 0;
  },
};

export const clientsList: Command = {
  path: ['clients', 'list'],
  summary: "List an organization's API clients (never their secrets)",
  usage: 'adreport clients list --org ID [--db FILE] [--json]',
  optionHelp: ['--org ID           the organization'],
  options: { org: { type: 'string' } },
  async run(context) {
    const organizationId = parseId(requireOption(context.values, 'org'), 'org');
    const clients = await withAdminStore(context.dbPath, async (db) => {
      if (!(await db.read((r) => getOrganization(r, organizationId)))) throw new CliError(`organization ${organizationId} does not exist`);
      return db.read((r) => listClients(r, organizationId));
    });
    printResult(context, { clients });
    return 0;
  },
};

export const clientsDisable: Command = {
  path: ['clients', 'disable'],
  summary: 'Disable a client: no new tokens, and its tokens stop working within 60 s',
  usage: 'adreport clients disable --client-id X [--db FILE] [--json]',
  optionHelp: ['--client-id X      the client to disable'],
  options: { 'client-id': { type: 'string' } },
  async run(context) {
    const clientId = requireOption(context.values, 'client-id');
    const client = await withAdminStore(context.dbPath, (db) => db.write((tx) => disableClient(tx, clientId)));
    if (!client) throw new CliError(`client ${clientId} does not exist`);
    printResult(context, { client });
    return 0;
  },
};
