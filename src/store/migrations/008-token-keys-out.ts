import { keyFilePathFor } from '../../auth/key-file.js';
import { importLegacyKey } from '../../auth/signing-keys.js';
import type { Migration } from './migration.js';

/**
 * The token-signing key leaves the database (issue 19 item 21): whoever could read the file
 * could mint tokens for every organization. It moves into the owner-only key file beside the
 * database, retired (src/auth/signing-keys.ts says why), and the table goes.
 */
export const m008TokenKeysOut: Migration = {
  version: 8,
  name: 'token-signing key moved out of the database into the key file',
  async before(tx, { dbPath, now }) {
    const row = await tx.one<{ keyHex: string }>(
      'SELECT key_hex AS "keyHex" FROM server_keys WHERE name = \'token-signing\'',
    );
    if (row) importLegacyKey(keyFilePathFor(dbPath), row.keyHex, now);
  },
  statements: ['DROP TABLE server_keys'],
};
