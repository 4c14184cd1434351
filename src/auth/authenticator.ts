import { ApiError } from '../shared/errors.js';
import type { Scope } from '../config/config.js';
import type { DisabledClients } from './disabled-clients.js';
import { parseAuthorizationHeader } from './authorization-header.js';
import type { TokenKeys } from './signing-keys.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Who is calling; every store function downstream takes `organizationId` from here. */
export interface AuthContext {
  readonly clientId: string;
  readonly organizationId: number;
  readonly scopes: readonly Scope[];
}

const REALM = 'realm="adreport"';

/**
 * Bearer tokens (RFC 6750): signature (once per token: verified-tokens.ts), expiry and the
 * in-memory disabled list; no query, no I/O.
 */
export class Authenticator {
  private readonly verified = new VerifiedTokens();

  constructor(
    private readonly keys: TokenKeys,
    private readonly disabled: DisabledClients,
    private readonly nowMs: () => number,
  ) {}

  authenticate(authorization: string | undefined, requiredScope: Scope): AuthContext {
    const header = parseAuthorizationHeader(authorization);
    if (header.kind === 'absent' || header.kind === 'other_scheme') {
      // RFC 6750 3.1: a request without bearer credentials, including one that tried another scheme, gets the bare challenge.
      const got =
        header.kind === 'other_scheme' ? ` The ${header.scheme.slice(0, 32)} scheme is not accepted here.` : '';
      throw new ApiError(
        401,
        'unauthorized',
        `This endpoint needs an access token: send Authorization: Bearer <token> (get one from POST /token).${got}`,
        [],
        {
          'WWW-Authenticate': `Bearer ${REALM}`,
        },
      );
    }
    if (header.kind === 'malformed')
      throw new ApiError(400, 'invalid_request', header.problem, [], {
        'WWW-Authenticate': challenge('invalid_request', header.problem),
      });
    const check = this.verified.verify(header.token, this.keys.verificationKey, Math.floor(this.nowMs() / 1000));
    if (!check.ok) {
      throw invalidToken(
        check.reason === 'expired'
          ? 'The access token has expired; request a new one from POST /token.'
          : 'The access token is invalid.',
      );
    }
    const { claims } = check;
    if (this.disabled.has(claims.clientId)) throw invalidToken('The client of this access token is disabled.');
    if (!claims.scopes.includes(requiredScope)) {
      throw new ApiError(
        403,
        'insufficient_scope',
        `This access token lacks the scope "${requiredScope}" that this API requires.`,
        [],
        {
          'WWW-Authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${requiredScope}"`,
        },
      );
    }
    return { clientId: claims.clientId, organizationId: claims.organizationId, scopes: claims.scopes };
  }
}

function invalidToken(message: string): ApiError {
  return new ApiError(401, 'invalid_token', message, [], { 'WWW-Authenticate': challenge('invalid_token', message) });
}

/** RFC 6750 3: error_description may hold only %x20-21 / %x23-5B / %x5D-7E (no quote, no backslash). */
function challenge(error: 'invalid_request' | 'invalid_token', description: string): string {
  const safe = description.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "'");
  return `Bearer ${REALM}, error="${error}", error_description="${safe}"`;
}
