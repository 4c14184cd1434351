import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function freshDb(): string {
  const dir = tempDir('adreport-cli-');
  dirs.push(dir);
  return path.join(dir, 'adreport.duckdb');
}

function expectOneLineFailure(result: { code: number | null; stderr: string; stdout: string }, pattern: RegExp) {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^adreport: /);
  expect(lines[0]).toMatch(pattern);
}

describe('adreport --help', () => {
  it.each([
    [[]],
    [['--help']],
    [['serve', '--help']],
    [['orgs', 'create', '--help']],
    [['clients', 'create', '--help']],
    [['clients', 'list', '--help']],
    [['clients', 'disable', '--help']],
    [['keys', 'rotate', '--help']],
  ])('prints usage for %j and exits 0', async (args) => {
    const result = await runCli(args);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: adreport/);
    if (args.length > 1) expect(result.stdout).toMatch(/--db FILE[\s\S]*--json/);
  });
});

describe('adreport orgs and clients', () => {
  it('creates an organization with the documented JSON', async () => {
    const result = await runCli(['orgs', 'create', '--name', 'Acme Agency', '--db', freshDb(), '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ organization: { id: 1, name: 'Acme Agency' } });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('creates, lists and disables clients with the documented JSON', async () => {
    const db = freshDb();
    await runCli(['orgs', 'create', '--name', 'A', '--db', db]);
    const created = await runCli(['clients', 'create', '--org', '1', '--db', db, '--json']);
    expect(created.code).toBe(0);
    const client = JSON.parse(created.stdout);
    expect(client).toEqual({
      clientId: expect.stringMatching(/^adr_/),
      clientSecret: expect.stringMatching(/^[A-Za-z0-9\-._~]{22,}$/),
      organizationId: 1,
      scopes: ['provisioning', 'reporting'],
    });

    const narrow = JSON.parse(
      (
        await runCli([
          'clients',
          'create',
          '--org',
          '1',
          '--scopes',
          'reporting',
          '--name',
          'BI export',
          '--db',
          db,
          '--json',
        ])
      ).stdout,
    );
    expect(narrow.scopes).toEqual(['reporting']);

    const listed = JSON.parse((await runCli(['clients', 'list', '--org', '1', '--db', db, '--json'])).stdout);
    expect(listed.clients.map((c: { clientId: string }) => c.clientId).sort()).toEqual(
      [client.clientId, narrow.clientId].sort(),
    );
    expect(JSON.stringify(listed)).not.toContain(client.clientSecret);
    expect(listed.clients.find((c: { clientId: string }) => c.clientId === narrow.clientId)).toMatchObject({
      name: 'BI export',
      scopes: ['reporting'],
      disabledAt: null,
    });

    const disabled = await runCli(['clients', 'disable', '--client-id', client.clientId, '--db', db, '--json']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout).client).toMatchObject({
      clientId: client.clientId,
      disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it.each([
    [['orgs', 'create'], /--name is required/],
    [['orgs', 'create', '--name', ''], /--name is required/],
    [['orgs', 'create', '--name', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['clients', 'create', '--org', 'abc'], /--org must be a positive integer/],
    [['clients', 'create', '--org', '1', '--scopes', 'admin'], /unknown scope "admin"/],
    [['clients', 'create', '--org', '42'], /organization 42 does not exist/, 'existing'],
    [['clients', 'list', '--org', '42'], /organization 42 does not exist/, 'existing'],
    [['clients', 'disable', '--client-id', 'adr_nope'], /client adr_nope does not exist/, 'existing'],
    [['clients', 'frobnicate'], /unknown command "clients frobnicate"/],
    [['serve', '--port', 'http'], /invalid setting port/],
  ] as Array<[string[], RegExp, string?]>)('fails %j with one clear line', async (args, pattern, file) => {
    const db = freshDb();
    // A database file with an organization (these commands refuse a file that does not exist).
    if (file === 'existing') expect((await runCli(['orgs', 'create', '--name', 'A', '--db', db])).code).toBe(0);
    const result = await runCli([...args, '--db', db]);
    expectOneLineFailure(result, pattern);
  });
});

describe('adreport serve', () => {
  it('on a fresh database creates the demo client, whose credentials get a token over HTTPS', async () => {
    const db = freshDb();
    const serve = await startServe(['--demo', '--db', db]);
    try {
      expect(serve.listening.url).toBe(`https://localhost:${serve.listening.port}`);
      const demo = serve.listening.demo!;
      const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
      const token = await http.request('POST', '/token', {
        headers: { authorization: basic(demo.clientId, demo.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(200);
      http.close();
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
    const again = await startServe(['--demo', '--db', db]);
    again.child.kill('SIGTERM');
    expect(again.listening.demo).toBeNull();
    expect(await again.exited).toBe(0);
  });

  it('serves credentials made by the admin commands, and admin commands keep working while it holds the file', async () => {
    const db = freshDb();
    await runCli(['orgs', 'create', '--name', 'Ops', '--db', db]);
    const client = JSON.parse((await runCli(['clients', 'create', '--org', '1', '--db', db, '--json'])).stdout);
    const serve = await startServe(['--db', db, '--http-port', '0']);
    try {
      expect(serve.listening.demo).toBeNull();
      expect(serve.listening.httpPort).toEqual(expect.any(Number));
      const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
      const token = await http.request('POST', '/token', {
        headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(200);
      http.close();

      // Sent to the server over its admin socket (test/cli-admin-*.test.ts cover every command).
      const second = await runCli(['orgs', 'create', '--name', 'Second', '--db', db, '--json']);
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual({ organization: { id: 2, name: 'Second' } });
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
    // The server closed the file cleanly: the admin command opens it itself now.
    const after = await runCli(['clients', 'list', '--org', '1', '--db', db, '--json']);
    expect(after.code).toBe(0);
    expect(fs.existsSync(`${db}.admin.sock`)).toBe(false);
  });

  it('says which port is in use and how to choose another, for --port and --http-port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const db = freshDb();
      const api = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--db', db]);
      expectOneLineFailure(
        api,
        new RegExp(
          `^adreport: port ${port} is in use on 127\\.0\\.0\\.1; choose another with --port N or ADREPORT_PORT$`,
        ),
      );
      expect(api.code).toBe(1);
      const plain = await runCli([
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--http-port',
        String(port),
        '--db',
        db,
      ]);
      expectOneLineFailure(
        plain,
        new RegExp(
          `^adreport: port ${port} is in use on 127\\.0\\.0\\.1; choose another with --http-port N or ADREPORT_HTTP_PORT$`,
        ),
      );
      const fromEnv = await runCli(['serve', '--host', '127.0.0.1', '--db', db], { ADREPORT_PORT: String(port) });
      expectOneLineFailure(
        fromEnv,
        new RegExp(
          `^adreport: port ${port} is in use on 127\\.0\\.0\\.1; choose another with --port N or ADREPORT_PORT$`,
        ),
      );
      // One number for both listeners: the API listener gets it, the plain-HTTP one is refused.
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const free = (probe.address() as net.AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve));
      const both = await runCli([
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        String(free),
        '--http-port',
        String(free),
        '--db',
        db,
      ]);
      expectOneLineFailure(
        both,
        new RegExp(
          `^adreport: port ${free} is in use on 127\\.0\\.0\\.1; choose another with --http-port N or ADREPORT_HTTP_PORT$`,
        ),
      );
      expect(fs.readdirSync(path.dirname(db)).filter((name) => name.endsWith('.sock'))).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const db = freshDb();
    const serve = await startServe(['--demo', '--db', db]);
    const demo = serve.listening.demo!;
    const http = new HttpClient(serve.listening.url, fs.readFileSync(`${db}.tls/cert.pem`, 'utf8'));
    const wrong = () =>
      http.request('POST', '/token', {
        headers: { authorization: basic(demo.clientId, 'wrong'), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      });
    // After five failures each further one is held back (>= 400 ms here): a request that is surely in flight.
    for (let i = 0; i < 6; i++) await wrong();
    const inFlight = wrong();
    await new Promise((resolve) => setTimeout(resolve, 150));
    serve.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(401);
    http.close();
    expect(await serve.exited).toBe(0);
    expect(serve.stderr()).not.toMatch(/error/i);
  });
});
