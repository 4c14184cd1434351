import fs from 'node:fs';
import { CLIENT_TYPES_PATH, fetchServedDocument, renderClientTypes } from './client-types.js';

/**
 * `npm run build`'s first step: the typed client's types from the OpenAPI document the service
 * serves. Rewrites src/client/openapi-types.ts only when it changed, so a build with an
 * unchanged API touches nothing.
 */
const started = Date.now();
const types = await renderClientTypes(await fetchServedDocument());
const before = fs.existsSync(CLIENT_TYPES_PATH) ? fs.readFileSync(CLIENT_TYPES_PATH, 'utf8') : '';
if (before !== types) fs.writeFileSync(CLIENT_TYPES_PATH, types);
console.log(
  `client types: ${before === types ? 'unchanged' : 'written'} ${CLIENT_TYPES_PATH} (${types.length} chars, ${Date.now() - started} ms)`,
);
