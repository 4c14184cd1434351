import { errorFromResponse } from './errors.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes (`reporting`, `provisioning`); the client's own when absent. */
  scope?: string;
}

export interface AccessToken {
  readonly accessToken: string;
  readonly scope: string;
  /** Epoch milliseconds at which the service stops accepting it. */
  readonly expiresAtMs: number;
}

/**
 * Access tokens by the client credentials grant (spec 5): one request at a time however many
 * calls want a token, and a new token `renewBeforeSeconds` before the old one expires (or at half
 * its life when that is shorter), so no call carries a token that expires on the way.
 */
export class TokenSource {
  private current: AccessToken | undefined;
  private pending: Promise<AccessToken> | undefined;
  /** How long before expiry a token is renewed: set from the first token's lifetime. */
  private marginMs = 0;

  constructor(
    private readonly tokenUrl: string,
    private readonly credentials: ClientCredentials,
    private readonly fetchFn: (request: Request) => Promise<Response>,
    private readonly renewBeforeSeconds: number,
    private readonly nowMs: () => number,
  ) {}

  /** A token valid for at least the renewal margin. */
  async get(): Promise<AccessToken> {
    if (this.current && this.nowMs() < this.renewAtMs(this.current)) return this.current;
    this.pending ??= this.request().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forget the token (the service refused it: revoked, or its signing key rotated away). */
  invalidate(token: string): void {
    if (this.current?.accessToken === token) this.current = undefined;
  }

  private renewAtMs(token: AccessToken): number {
    return token.expiresAtMs - this.marginMs;
  }

  private async request(): Promise<AccessToken> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.credentials.scope) form.set('scope', this.credentials.scope);
    const requestedAt = this.nowMs();
    const response = await this.fetchFn(
      new Request(this.tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basicCredentials(this.credentials.clientId, this.credentials.clientSecret)}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
      }),
    );
    if (!response.ok) throw await errorFromResponse(response);
    const body = (await response.json()) as { access_token: string; scope: string; expires_in: number };
    const lifetimeMs = body.expires_in * 1000;
    // Counted from before the request: the service's clock started the token's life no later than that.
    this.marginMs = Math.min(this.renewBeforeSeconds * 1000, lifetimeMs / 2);
    this.current = { accessToken: body.access_token, scope: body.scope, expiresAtMs: requestedAt + lifetimeMs };
    return this.current;
  }
}

/**
 * `client_id:client_secret` for HTTP Basic, each form-encoded first (RFC 6749 2.3.1), then the
 * UTF-8 bytes in standard Base64 (spec 5.2). Written for browsers and Node alike (no Buffer).
 */
export function basicCredentials(clientId: string, clientSecret: string): string {
  const text = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}
