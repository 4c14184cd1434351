import { ApiError } from '../shared/errors.js';
import type { Scope } from '../config/config.js';
import type { DisabledClients } from './disabled-clients.js';
import { verifyToken } from './tokens.js';

/** Who is calling; every store function downstream takes `organizationId` from here. */
export interface AuthContext {
  readonly clientId: string;
  readonly organizationId: number;
  readonly scopes: readonly Scope[];
}

const REALM = 'realm="adreport"';

/** Bearer tokens (RFC 6750): signature, expiry and the in-memory disabled list; no query. */
export class Authenticator {
  constructor(
    private readonly signingKey: Buffer,
    private readonly disabled: DisabledClients,
    private readonly nowMs: () => number,
  ) {}

  authenticate(authorization: string | undefined, requiredScope: Scope): AuthContext {
    if (!authorization || !/^Bearer\b/i.test(authorization)) {
      throw new ApiError(401, 'unauthorized', 'This endpoint needs an access token: send Authorization: Bearer <token> (get one from POST /token).', [], {
        'WWW-Authenticate': `Bearer ${REALM}`,
      });
    }
    // RFC 6750 2.1 b64token syntax.
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
    if (!match) throw invalidToken('The Authorization header is not a well-formed Bearer token.');
    const check = verifyToken(match[1]!, this.signingKey, Math.floor(this.nowMs() / 1000));
    if (!check.ok) {
      throw invalidToken(check.reason === 'expired' ? 'The access token has expired; request a new one from POST /token.' : 'The access token is invalid.');
    }
    const { claims } = check;
    if (this.disabled.has(claims.clientId)) throw invalidToken('The client of this access token is disabled.');
    if (!claims.scopes.includes(requiredScope)) {
      throw new ApiError(403, 'insufficient_scope', `This access token lacks the scope "${requiredScope}" that this API requires.`, [], {
        'WWW-Authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${requiredScope}"`,
      });
    }
    return { clientId: claims.clientId, organizationId: claims.organizationId, scopes: claims.scopes };
  }
}

function invalidToken(message: string): ApiError {
  return new ApiError(401, 'invalid_token', message, [], {
    'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="${message.replaceAll('"', "'")}"`,
  });
}
