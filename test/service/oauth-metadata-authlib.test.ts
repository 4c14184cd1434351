import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Authlib (Python) validates RFC 8414 metadata with `AuthorizationServerMetadata.validate()`
 * (authlib/oauth2/rfc8414/models.py): it refused the empty `response_types_supported` this
 * service published (issue 36 item 6). Debian's python3-authlib is installed by `.ci/run`.
 */
const INSTALL = 'apt-get install -y --no-install-recommends python3-authlib';
/** Debian's interpreter, where the package goes (a python3 earlier on PATH, e.g. pyenv's, lacks it). */
const PYTHON = '/usr/bin/python3';

const VALIDATE = `
import json, sys
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
try:
    AuthorizationServerMetadata(json.load(sys.stdin)).validate()
    print("valid")
except ValueError as error:
    print("invalid: " + str(error))
`;

/** Authlib's verdict on a metadata document: "valid" or "invalid: <its message>". */
function authlibVerdict(metadata: unknown): string {
  const run = spawnSync(PYTHON, ['-c', VALIDATE], { input: JSON.stringify(metadata), encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    throw new Error(
      `Authlib's validator did not run (${run.error?.message ?? run.stderr.trim()}); install it with: ${INSTALL}`,
    );
  }
  return run.stdout.trim();
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("GET /.well-known/oauth-authorization-server against Authlib's RFC 8414 validator", () => {
  it('is valid metadata, announcing no response type that issues a code or a token', async () => {
    const res = await server.http.get('/.well-known/oauth-authorization-server', {
      host: `localhost:${server.service.port}`,
    });
    expect(res.status).toBe(200);
    expect(authlibVerdict(res.json)).toBe('valid');
    expect(res.json.response_types_supported).toEqual(['none']);
    // Nothing that would need an authorization endpoint (Authlib requires one for these grants).
    expect(res.json.authorization_endpoint).toBeUndefined();
    expect(res.json.grant_types_supported).toEqual(['client_credentials']);
  });

  it('is judged by a validator that does refuse what the service used to publish (an empty list)', async () => {
    const res = await server.http.get('/.well-known/oauth-authorization-server', {
      host: `localhost:${server.service.port}`,
    });
    expect(authlibVerdict({ ...res.json, response_types_supported: [] })).toBe(
      'invalid: "response_types_supported" is required',
    );
    const { response_types_supported: _omitted, ...withoutMember } = res.json as Record<string, unknown>;
    expect(authlibVerdict(withoutMember)).toMatch(/^invalid: "response_types_supported" is required/);
  });
});
