import fs from 'node:fs';
import { keyFilePathFor } from '../../auth/key-file.js';
import { rotateSigningKeys } from '../../auth/signing-keys.js';
import { configFromEnv, filesAnchor, serviceConfigSchema } from '../../config/config.js';
import { CliError, printResult, type Command } from '../command.js';

/**
 * Works on the key file beside the database, not on the database, so it runs while the server
 * holds the database; the server re-reads the file within a second.
 */
export const keysRotate: Command = {
  path: ['keys', 'rotate'],
  summary: 'Rotate the token-signing key: a new key signs; the old one verifies its tokens until they expire',
  usage: 'adreport keys rotate [--drop-previous] [--db FILE] [--json]',
  optionHelp: [
    '--drop-previous    also stop verifying every earlier key now (a leaked key): all issued tokens stop working',
    'Works on <db>.token-keys.json, also while the server runs (it picks the new key up within 1 s). The old key',
    '                     verifies for ADREPORT_TOKEN_TTL_SECONDS (default 3600) more; not for ADREPORT_TOKEN_SIGNING_KEY keys.',
  ],
  options: { 'drop-previous': { type: 'boolean' } },
  async run(context) {
    const env = configFromEnv(context.io.env);
    if (env.tokenSigningKey !== undefined) {
      throw new CliError(
        'the signing key comes from ADREPORT_TOKEN_SIGNING_KEY: rotate it in your secret store (the old key goes to ADREPORT_TOKEN_PREVIOUS_KEYS until its tokens expire) and restart the server',
      );
    }
    const anchor = filesAnchor({ dbPath: context.dbPath, storeUrl: context.storeUrl, filesDir: context.filesDir });
    if (context.storeUrl === undefined && !fs.existsSync(context.dbPath))
      throw new CliError(
        `no database at ${context.dbPath}; its keys are made on the first start of adreport serve --db ${context.dbPath}`,
      );
    const ttl = serviceConfigSchema.shape.tokenTtlSeconds.safeParse(env.tokenTtlSeconds);
    if (!ttl.success) throw new CliError('invalid setting ADREPORT_TOKEN_TTL_SECONDS: a positive number of seconds', 2);
    const result = rotateSigningKeys(keyFilePathFor(anchor), {
      now: new Date(),
      ttlSeconds: ttl.data,
      dropPrevious: context.values['drop-previous'] === true,
    });
    printResult(context, result);
    return 0;
  },
};
