import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from './helpers/cli.js';
import { basic, FORM, HttpClient } from './helpers/http.js';
import { tempDir } from './helpers/server.js';

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
  it.each([[[]], [['--help']], [['serve', '--help']], [['orgs', 'create', '--help']], [['clients', 'create', '--help']], [['clients', 'list', '--help']], [['clients', 'disable', '--help']], [['keys', 'rotate', '--help']]])(
    'prints usage for %j and exits 0',
    async (args) => {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Usage: adreport/);
      if (args.length > 1) expect(result.stdout).toMatch(/--db FILE[\s\S]*--json/);
    },
  );
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
    expect(client).toEqual({ clientId: expect.stringMatching(/^adr_/), clientSecret: expect.stringMatching(/^[A-Za-z0-9\-._~]{22,}$/), organizationId: 1, scopes: ['provisioning', 'reporting'] });

    const narrow = JSON.parse((await runCli(['clients', 'create', '--org', '1', '--scopes', 'reporting', '--name', 'BI export', '--db', db, '--json'])).stdout);
    expect(narrow.scopes).toEqual(['reporting']);

    const listed = JSON.parse((await runCli(['clients', 'list', '--org', '1', '--db', db, '--json'])).stdout);
    expect(listed.clients.map((c: { clientId: string }) => c.clientId).sort()).toEqual([client.clientId, narrow.clientId].sort());
    expect(JSON.stringify(listed)).not.toContain(client.clientSecret);
    expect(listed.clients.find((c: { clientId: string }) => c.clientId === narrow.clientId)).toMatchObject({ name: 'BI export', scopes: ['reporting'], disabledAt: null });

    const disabled = await runCli(['clients', 'disable', '--client-id', client.clientId, '--db', db, '--json']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout).client).toMatchObject({ clientId: client.clientId, disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });

  it.each([
    [['orgs', 'create'], /--name is required/],
    [['orgs', 'create', '--name', ''], /--name is required/],
    [['orgs', 'create', '--name', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['clients', 'create', '--org', 'abc'], /--org must be a positive integer/],
    [['clients', 'create', '--org', '1', '--scopes', 'admin'], /unknown scope "admin"/],
    [['clients', 'create', '--org', '42'], /organization 42 does not exist/],
    [['clients', 'list', '--org', '42'], /organization 42 does not exist/],
    [['clients', 'disable', '--client-id', 'adr_nope'], /client adr_nope does not exist/],
    [['clients', 'frobnicate'], /unknown command "clients frobnicate"/],
    [['serve', '--port', 'http'], /invalid setting port/],
  ])('fails %j with one clear line', async (args, pattern) => {
    const result = await runCli([...args, '--db', freshDb()]);
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
      const http = new HttpClient(serve.listening.url, fs.readFileSync(path.join(path.dirname(db), 'tls', 'cert.pem'), 'utf8'));
      const token = await http.request('POST', '/token', { headers: { authorization: basic(demo.clientId, demo.clientSecret), 'content-type': FORM }, body: 'grant_type=client_credentials' });
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

  it('serves credentials made by the admin commands, and admin commands say clearly when a server holds the file', async () => {
    const db = freshDb();
    await runCli(['orgs', 'create', '--name', 'Ops', '--db', db]);
    const client = JSON.parse((await runCli(['clients', 'create', '--org', '1', '--db', db, '--json'])).stdout);
    const serve = await startServe(['--db', db, '--http-port', '0']);
    try {
      expect(serve.listening.demo).toBeNull();
      expect(serve.listening.httpPort).toEqual(expect.any(Number));
      const http = new HttpClient(serve.listening.url, fs.readFileSync(path.join(path.dirname(db), 'tls', 'cert.pem'), 'utf8'));
      const token = await http.request('POST', '/token', { headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': FORM }, body: 'grant_type=client_credentials' });
      expect(token.status).toBe(200);
      http.close();

      const blocked = await runCli(['orgs', 'create', '--name', 'Second', '--db', db]);
      expectOneLineFailure(blocked, new RegExp(`${db.replaceAll('.', '\\.')} is held by a running process \\(pid ${serve.child.pid}\\).*stop it`));
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
    // The server closed the file cleanly: the admin command works now.
    const after = await runCli(['clients', 'list', '--org', '1', '--db', db, '--json']);
    expect(after.code).toBe(0);
  });

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const db = freshDb();
    const serve = await startServe(['--demo', '--db', db]);
    const demo = serve.listening.demo!;
    const http = new HttpClient(serve.listening.url, fs.readFileSync(path.join(path.dirname(db), 'tls', 'cert.pem'), 'utf8'));
    const wrong = () => http.request('POST', '/token', { headers: { authorization: basic(demo.clientId, 'wrong'), 'content-type': FORM }, body: 'grant_type=client_credentials' });
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
