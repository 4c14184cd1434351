import type { OpenAPIHono } from '@hono/zod-openapi';
import { SCOPES } from '../config/config.js';
import { registerErrorComponents } from './openapi-errors.js';

type Registry = OpenAPIHono['openAPIRegistry'];

/** Tags group operations by resource; their order is the order of the rendered document. */
export const TAGS = {
  Token: 'OAuth 2.0 client credentials: the access token every other call carries.',
  Organization: 'The organization the credentials belong to.',
  Accounts: 'Advertiser accounts (spec 2.1, 2.2).',
  Links: 'Ad platform accounts linked to an account, and the access level of each link.',
  Labels: 'Name/value labels of accounts and campaigns.',
  'Platform accounts':
    'Master accounts an operator linked, and the ad platform accounts the organization knows or may link.',
  Campaigns: 'Imported campaigns and the copy tool between the two search platforms.',
  Jobs: 'Asynchronous jobs of the last seven days.',
  Markups: 'Markup periods of an account (costWithMarkup).',
  Webhooks: 'Signed HTTPS pushes of events (a job ended, statistics synced, a link lost access), with a delivery log.',
  Reporting: 'Statistics of every level, exports, markup periods and call details.',
  Health: 'Liveness.',
} as const;
export type Tag = keyof typeof TAGS;

const DESCRIPTION = `Provisioning v0 and reporting v0 of adreport (the contract: interface-spec.md with supplement.md).

**Errors.** Every error but those of POST /token is the \`Error\` envelope \`{error:{status,code,message,details,requestId}}\`;
POST /token answers RFC 6749 5.2 errors (\`OAuthError\`). A DELETE error is its status alone, without a body (spec 7).
Every operation documents the statuses it can answer. Besides those, any path answers:

- **404** \`not_found\` when no endpoint matches the path, and \`https_required\` for a plain-HTTP request (spec 5.7).
- **405** \`method_not_allowed\` when the path exists but not with this method; the \`Allow\` header lists the methods it has.
- **400** \`unencoded_characters\` when the raw query string holds a character outside RFC 3986's query set
  (space, \`"\`, \`<\`, \`>\`, \`[\`, \`]\`, \`{\`, \`}\`, \`|\`, \`\\\\\`, \`^\`, backtick, non-ASCII, \`%\` without two hex digits): percent-encode them.
- **Transport** (before any route; the connection is closed after each): **408** \`request_timeout\` when the request head
  has not arrived within 20 s or the whole request within 60 s; **414** \`uri_too_long\` for a request target over 12 KiB;
  **431** for a request head over 16 KiB; **501** \`not_implemented\` for a method other than GET, HEAD, POST, PUT,
  PATCH, DELETE, OPTIONS; **400** \`bad_request\` for a missing, repeated or malformed \`Host\`.

**Query parameters.** Every operation answers 400 \`unknown_parameter\` naming a query parameter it does not
document, before doing anything (a DELETE deletes nothing), operations without parameters included; only POST /token
ignores them, as RFC 6749 3.2 requires. A parameter that is not a list given twice is 400 \`invalid_parameter\`.
A list (\`type: array\`, and the comma lists \`sort\` and \`formulas\`) may be sent as the comma list its
\`style: form, explode: false\` declares (\`segments=Week,DeviceType\`), with the name repeated
(\`segments=Week&segments=DeviceType\`, what clients that default to \`explode: true\` send) or both
(\`segments=Week,Day&segments=DeviceType\`): one list in the order sent, its limits (\`maxItems\`) over the
whole list, no empty entries.
Rules that tie two parameters together are stated in the description of the parameter they restrict
(\`offset\` a multiple of \`limit\`, \`endDate\` not before \`startDate\`, ...).

**Request bodies** may be sent with \`Content-Encoding: gzip\` (or \`x-gzip\`), \`deflate\` (the zlib format, RFC 9110
8.4.1.2) or \`br\`, or stacked (\`gzip, br\`: applied in that order, at most 3); \`identity\` is no coding. The 1 MiB
limit holds for the body as sent and for each decoded form: decoding stops as soon as it passes 1 MiB (413
\`payload_too_large\`). A body that is not what its coding says is 400 \`invalid_body\` (detail field
\`Content-Encoding\`); another coding (\`compress\`, \`zstd\`, ...) is 415 \`unsupported_content_encoding\` with
\`Accept-Encoding: gzip, deflate, br\` (RFC 9110 15.5.16); POST /token answers that as 400 \`invalid_request\` with the
same header, as it answers a body that is not a form.

**Every response** carries \`X-Request-Id\` (echoed when the request sent 1-200 visible ASCII characters).
Bearer routes carry the IETF draft headers \`RateLimit\` and \`RateLimit-Policy\` (reporting: also the organization's \`"db-time"\` policy).`;

/** The document's head: info, servers and tags. */
export function documentConfig(version: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'adreport',
      version,
      description: DESCRIPTION,
    },
    // Generated clients take the default (the demo's address); host and port are variables
    // because a deployment chooses its own (--host, --port, or a proxy in front).
    servers: [
      {
        url: 'https://{host}:{port}',
        description: 'The service; the defaults are `npm start` on this machine.',
        variables: {
          host: { default: 'localhost', description: 'Host name of the service.' },
          port: { default: '8443', description: 'HTTPS port (`--port`, `ADREPORT_PORT`).' },
        },
      },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  };
}

/** Security schemes and error components, registered once before the document is served. */
export function registerDocumentComponents(registry: Registry): void {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: `An access token from POST /token. Operations list the scope they need (${SCOPES.join(', ')}); a token without it gets 403.`,
  });
  registry.registerComponent('securitySchemes', 'basicAuth', {
    type: 'http',
    scheme: 'basic',
    description: 'Client id and secret of POST /token, each form-encoded (RFC 6749 2.3.1).',
  });
  registerErrorComponents(registry);
}
