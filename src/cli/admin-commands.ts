import type { AdminCommand } from './admin/admin-command.js';
import { clientsCreate, clientsDisable, clientsList } from './commands/clients.js';
import { exportReport } from './commands/export.js';
import { fxImport } from './commands/fx.js';
import { masterAccountsLink } from './commands/master-accounts.js';
import { orgsCreate } from './commands/orgs.js';
import { sync } from './commands/sync.js';

/**
 * The commands that work with or without a server on the file: the CLI runs their operation on
 * its own store, or `serve` runs it for them over the admin socket. A new one goes here, once.
 */
export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  orgsCreate,
  clientsCreate,
  clientsList,
  clientsDisable,
  masterAccountsLink,
  sync,
  exportReport,
  fxImport,
];
