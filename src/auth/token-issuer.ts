import { OAuthError } from '../shared/errors.js';
import type { TokenBuckets } from '../shared/token-bucket.js';
import type { Database } from '../store/database.js';
import type { Scope } from '../config/config.js';
import { findClientCredentials, type ClientCredentialRecord } from './clients.js';
import type { FailureSlowdown } from './failure-slowdown.js';
import { isScope } from './scopes.js';
import { decoyHash, verifySecret } from './secrets.js';
import type { TokenKeys } from './signing-keys.js';
import { signToken } from './tokens.js';
import type { VerifiedSecretCache } from './verified-secret-cache.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface TokenIssuerDeps {
  db: Database;
  keys: TokenKeys;
  ttlSeconds: number;
  nowMs: () => number;
  sleep: (ms: number) => Promise<void>;
  slowdown: FailureSlowdown;
  verifiedSecrets: VerifiedSecretCache;
  /** Charged only after a client authenticated, so nobody can spend another client's budget. */
  issueRate: TokenBuckets;
}

/** The client-credentials grant (RFC 6749 4.4) once the request itself is well formed. */
export class TokenIssuer {
  constructor(private readonly deps: TokenIssuerDeps) {}

  /** Checks the client's secret; a failure is answered late (failure-slowdown.ts) and says nothing more. */
  async authenticate(clientId: string, secret: string): Promise<ClientCredentialRecord> {
    const { db, verifiedSecrets } = this.deps;
    const client = await db.read((r) => findClientCredentials(r, clientId));
    let authentic: boolean;
    if (!client) {
      await verifySecret(secret, await decoyHash());
      authentic = false;
    } else if (verifiedSecrets.matches(client.clientId, client.secretHash, secret)) {
      authentic = true;
    } else {
      authentic = await verifySecret(secret, client.secretHash);
      if (authentic) verifiedSecrets.remember(client.clientId, client.secretHash, secret);
    }
    if (!client || !authentic || client.disabled) {
      await this.deps.sleep(this.deps.slowdown.recordFailure(clientId, this.deps.nowMs()));
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed.', {
        'WWW-Authenticate': 'Basic realm="adreport", charset="UTF-8"',
      });
    }
    return client;
  }

  issue(client: ClientCredentialRecord, requestedScope: string | undefined): TokenResponse {
    const scopes = grantedScopes(client.scopes, requestedScope);
    const decision = this.deps.issueRate.take(client.clientId, this.deps.nowMs());
    if (!decision.allowed) {
      throw new OAuthError(
        429,
        'slow_down',
        'Too many token requests for this client; reuse the token until it expires.',
        {
          'Retry-After': String(decision.retryAfterSeconds),
        },
      );
    }
    const issuedAt = Math.floor(this.deps.nowMs() / 1000);
    const accessToken = signToken(
      {
        clientId: client.clientId,
        organizationId: client.organizationId,
        scopes,
        issuedAt,
        expiresAt: issuedAt + this.deps.ttlSeconds,
      },
      this.deps.keys.signingKey(),
    );
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.deps.ttlSeconds,
      scope: scopes.join(' '),
    };
  }
}

/** RFC 6749 3.3: space-delimited tokens; absent means everything the client holds. */
function grantedScopes(clientScopes: readonly Scope[], requested: string | undefined): Scope[] {
  if (requested === undefined) return [...clientScopes];
  const tokens = requested.split(' ');
  if (requested === '' || tokens.some((t) => t === '')) {
    throw new OAuthError(400, 'invalid_scope', 'scope must be one or more scope names separated by single spaces.');
  }
  const out: Scope[] = [];
  for (const token of tokens) {
    if (!isScope(token))
      throw new OAuthError(400, 'invalid_scope', `Unknown scope "${token}"; known scopes: provisioning, reporting.`);
    if (!clientScopes.includes(token))
      throw new OAuthError(400, 'invalid_scope', `This client is not allowed the scope "${token}".`);
    if (!out.includes(token)) out.push(token);
  }
  return out;
}
