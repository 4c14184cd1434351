/** What an Authorization header says, before any token is checked. */
export type AuthorizationHeader =
  | { readonly kind: 'absent' }
  /** Credentials of another scheme (Basic, Digest, ...): RFC 6750 3.1 counts them as no authentication. */
  | { readonly kind: 'other_scheme'; readonly scheme: string }
  /** Not `Bearer <b64token>`: RFC 6750 3.1's malformed request. */
  | { readonly kind: 'malformed'; readonly problem: string }
  | { readonly kind: 'bearer'; readonly token: string };

// RFC 9110 11.2: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]; auth-scheme is a token.
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:( +)(.*))?$/s;
// RFC 6750 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Splits the header by RFC 9110 11.4 and RFC 6750 2.1; Node has already trimmed the surrounding spaces. */
export function parseAuthorizationHeader(header: string | undefined): AuthorizationHeader {
  if (header === undefined) return { kind: 'absent' };
  if (header === '')
    return { kind: 'malformed', problem: 'The Authorization header is empty; send Authorization: Bearer <token>.' };
  const credentials = CREDENTIALS.exec(header);
  if (!credentials)
    return {
      kind: 'malformed',
      problem:
        'The Authorization header does not start with an authentication scheme; send Authorization: Bearer <token>.',
    };
  const [, scheme, separator, rest] = credentials as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'other_scheme', scheme };
  if (separator === undefined || rest === undefined || rest === '')
    return { kind: 'malformed', problem: 'The Bearer scheme needs a token after it: Authorization: Bearer <token>.' };
  if (/\s/.test(rest))
    return {
      kind: 'malformed',
      problem: 'The Authorization header holds more than one value after Bearer; send exactly one token.',
    };
  if (!B64TOKEN.test(rest))
    return {
      kind: 'malformed',
      problem:
        'The bearer token has characters outside RFC 6750 b64token (letters, digits, - . _ ~ + / and trailing =).',
    };
  return { kind: 'bearer', token: rest };
}
