import { OAuthError } from '../shared/errors.js';
import { rateLimitPolicy, rateLimitState } from '../shared/rate-limit-headers.js';
import type { RateBuckets } from '../shared/token-bucket.js';
import type { Store } from '../store/store.js';
import type { Scope } from '../config/config.js';
import { findClientCredentials, rememberScramVerifier, type ClientCredentialRecord } from './clients.js';
import { scramVerifierOf } from './scram.js';
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
  db: Store;
  keys: TokenKeys;
  ttlSeconds: number;
  nowMs: () => number;
  sleep: (ms: number) => Promise<void>;
  slowdown: FailureSlowdown;
  verifiedSecrets: VerifiedSecretCache;
  /** Charged only after a client authenticated, so nobody can spend another client's budget. */
  issueRate: RateBuckets;
}

export interface IssuedToken {
  readonly body: TokenResponse;
  /** RateLimit-Policy and RateLimit of the client's token bucket. */
  readonly rateHeaders: Readonly<Record<string, string>>;
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
      if (authentic) {
        verifiedSecrets.remember(client.clientId, client.secretHash, secret);
        await this.backfillScramVerifier(client.clientId, secret);
      }
    }
    if (!client || !authentic || client.disabled) {
      await this.deps.sleep(this.deps.slowdown.recordFailure(clientId, this.deps.nowMs()));
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed.', {
        'WWW-Authenticate': 'Basic realm="adreport", charset="UTF-8"',
      });
    }
    return client;
  }

  /**
   * A client made before SCRAM verifiers existed gets one now, the only moment its secret is known
   * (once per client per process: later checks hit the verified-secret cache).
   */
  private async backfillScramVerifier(clientId: string, secret: string): Promise<void> {
    const { db } = this.deps;
    const known = await db.read((r) =>
      r.one('SELECT 1 AS known FROM api_client_scram WHERE client_id = $1', [clientId]),
    );
    if (known) return;
    const verifier = await scramVerifierOf(secret);
    await db.write('no-report-data', (tx) => rememberScramVerifier(tx, clientId, verifier));
  }

  /**
   * A token, or 429 when the client asked for more than its token bucket allows. The answer
   * carries the bucket's RateLimit headers either way. RFC 6749 has no error code for rate
   * limiting: `slow_down` (what this said before) is RFC 8628's device-flow polling code and tells
   * a device to poll 5 s slower; `invalid_request` says the request is malformed, which a client
   * would not retry; `temporarily_unavailable` is the server's own overload (our 503). The 429
   * status and Retry-After carry the standard meaning (RFC 6585 4, RFC 9110 10.2.3); the code is
   * an extension code (RFC 6749 8.5 allows them; it fits 5.2's syntax), the same word as the
   * API's own 429s.
   */
  async issue(client: ClientCredentialRecord, requestedScope: string | undefined): Promise<IssuedToken> {
    const scopes = grantedScopes(client.scopes, requestedScope);
    const { issueRate } = this.deps;
    const decision = await issueRate.take(client.clientId, this.deps.nowMs());
    const rateHeaders = {
      'RateLimit-Policy': rateLimitPolicy('per-client', issueRate),
      RateLimit: rateLimitState('per-client', decision),
    };
    if (!decision.allowed) {
      throw new OAuthError(
        429,
        'rate_limited',
        `Too many token requests for this client; reuse the token until it expires (retry in ${decision.retryAfterSeconds} s).`,
        { ...rateHeaders, 'Retry-After': String(decision.retryAfterSeconds) },
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
      body: {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: this.deps.ttlSeconds,
        scope: scopes.join(' '),
      },
      rateHeaders,
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
