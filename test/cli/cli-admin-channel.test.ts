import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceConfigSchema } from '../../src/config/config.js';
import { runCli, startServe, stopServe, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

/**
 * The admin channel itself (issue 19 item 7): where `serve` puts its socket and with which mode,
 * what happens to a socket left by a killed server, a second server, a process holding the file
 * without a socket, long paths, the wire protocol; and item 6: a --db that does not exist.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function freshDir(): string {
  const dir = tempDir('adreport-channel-');
  dirs.push(dir);
  return dir;
}

function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A child process that holds the database file open (as DuckDB does for any process) and has no admin socket. */
async function holdFile(db: string): Promise<{ pid: number; release(): Promise<void> }> {
  const script = `
    const { DuckDBInstance } = require('@duckdb/node-api');
    DuckDBInstance.create(process.argv[1]).then((instance) => instance.connect()).then(() => console.log('ready'));
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) =>
    readline.createInterface({ input: child.stdout! }).once('line', () => resolve()),
  );
  return {
    pid: child.pid!,
    release: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** A socket file nobody listens on: what a server killed with SIGKILL leaves. */
async function deadSocket(socketPath: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(process.argv[1], () => console.log('ready'))`, socketPath],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) =>
    readline.createInterface({ input: child.stdout! }).once('line', () => resolve()),
  );
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  expect(fs.lstatSync(socketPath).isSocket()).toBe(true);
}

/** One raw request on the socket; every line of the answer. */
function rawRequest(socketPath: string, text: string): Promise<Array<Record<string, any>>> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ path: socketPath });
    let answer = '';
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        answer
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ),
    );
  });
}

describe('the admin socket of serve', () => {
  it('lies beside the database, mode 0600, owned by this user; serve announces it and removes it on a clean stop', async () => {
    const db = path.join(freshDir(), 'adreport.duckdb');
    const socket = `${db}.admin.sock`;
    const serve = await startServe(['--demo', '--db', db]);
    try {
      expect(serve.listening.adminSocket).toBe(socket);
      const stat = fs.lstatSync(socket);
      expect(stat.isSocket()).toBe(true);
      expect(stat.mode & 0o777).toBe(0o600);
      expect(stat.uid).toBe(process.getuid!());
      const listed = await runCli(['clients', 'list', '--org', '1', '--db', db, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).clients.map((c: { clientId: string }) => c.clientId)).toEqual([
        serve.listening.demo!.clientId,
      ]);
    } finally {
      expect(await stopServe(serve)).toBe(0);
    }
    expect(fs.existsSync(socket)).toBe(false);
  }, 300_000);

  it('a socket left by a server killed with SIGKILL blocks neither the next offline command (which removes it) nor the next server', async () => {
    const db = path.join(freshDir(), 'adreport.duckdb');
    const socket = `${db}.admin.sock`;
    const first = await startServe(['--demo', '--db', db]);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(fs.lstatSync(socket).isSocket()).toBe(true);

    const offline = await runCli(['clients', 'list', '--org', '1', '--db', db, '--json']);
    expect(offline.code, offline.stderr).toBe(0);
    expect(JSON.parse(offline.stdout).clients).toHaveLength(1);
    expect(fs.existsSync(socket)).toBe(false);

    const second = await startServe(['--db', db]);
    second.child.kill('SIGKILL');
    await second.exited;
    expect(fs.lstatSync(socket).isSocket()).toBe(true);
    // A new server replaces the leftover at once.
    const third = await startServe(['--db', db]);
    try {
      const created = await runCli(['orgs', 'create', '--name', 'After a crash', '--db', db, '--json']);
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toEqual({ organization: { id: 2, name: 'After a crash' } });
    } finally {
      expect(await stopServe(third)).toBe(0);
    }
  }, 300_000);

  it('a second server on the same file is refused with one line, and the first one keeps taking admin commands', async () => {
    const db = path.join(freshDir(), 'adreport.duckdb');
    const serve = await startServe(['--demo', '--db', db]);
    try {
      const second = await runCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', db]);
      expectOneLine(
        second,
        1,
        new RegExp(
          `^adreport: ${escape(db)} is held by a running process \\(pid ${serve.child.pid}\\), usually the adreport server; stop it`,
        ),
      );
      // data generate needs the file to itself (its own memory settings): still refused.
      const generate = await runCli(['data', 'generate', '--scale', '0.001', '--db', db]);
      expectOneLine(generate, 1, /is held by a running process/);
      expect(fs.lstatSync(`${db}.admin.sock`).isSocket()).toBe(true);
      const listed = await runCli(['clients', 'list', '--org', '1', '--db', db, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
    } finally {
      expect(await stopServe(serve)).toBe(0);
    }
  }, 300_000);

  it('a process holding the file without an admin socket gets the one-line "held by" error, also with a dead socket beside the file', async () => {
    const db = path.join(freshDir(), 'adreport.duckdb');
    const socket = `${db}.admin.sock`;
    expect((await runCli(['orgs', 'create', '--name', 'A', '--db', db])).code).toBe(0);
    const holder = await holdFile(db);
    const held = new RegExp(
      `^adreport: ${escape(db)} is held by a running process \\(pid ${holder.pid}\\), usually the adreport server; stop it before running admin commands on this file\\n$`,
    );
    try {
      expectOneLine(await runCli(['orgs', 'create', '--name', 'B', '--db', db]), 1, held);
      await deadSocket(socket);
      expectOneLine(await runCli(['clients', 'list', '--org', '1', '--db', db]), 1, held);
      // Not this process's to remove: the file's holder might be starting a server.
      expect(fs.lstatSync(socket).isSocket()).toBe(true);
    } finally {
      await holder.release();
    }
    const free = await runCli(['orgs', 'create', '--name', 'B', '--db', db, '--json']);
    expect(free.code, free.stderr).toBe(0);
    expect(JSON.parse(free.stdout)).toEqual({ organization: { id: 2, name: 'B' } });
    expect(fs.existsSync(socket)).toBe(false);
  }, 300_000);

  it('with a database path too long for a socket, binds under a private directory and links <db>.admin.sock to it', async () => {
    const dir = path.join(freshDir(), 'd'.repeat(50), 'e'.repeat(50));
    const db = path.join(dir, 'adreport.duckdb');
    const name = `${db}.admin.sock`;
    expect(Buffer.byteLength(name)).toBeGreaterThan(107);
    const serve = await startServe(['--demo', '--db', db]);
    let target: string;
    try {
      expect(serve.listening.adminSocket).toBe(name);
      expect(fs.lstatSync(name).isSymbolicLink()).toBe(true);
      target = fs.readlinkSync(name);
      expect(Buffer.byteLength(target)).toBeLessThanOrEqual(103);
      const socket = fs.lstatSync(target);
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);
      const parent = fs.lstatSync(path.dirname(target));
      expect(parent.uid).toBe(process.getuid!());
      expect(parent.mode & 0o077).toBe(0);
      const created = await runCli(['clients', 'create', '--org', '1', '--name', 'long path', '--db', db, '--json']);
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ organizationId: 1, scopes: ['provisioning', 'reporting'] });
    } finally {
      expect(await stopServe(serve)).toBe(0);
    }
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.lstatSync(name, { throwIfNoEntry: false })).toBeUndefined();
  }, 300_000);

  it('speaks one JSON line per request; another protocol version, an unknown command, a wrong input or garbage get one clear failure', async () => {
    const db = path.join(freshDir(), 'adreport.duckdb');
    const serve = await startServe(['--demo', '--db', db]);
    const socket = serve.listening.adminSocket;
    try {
      const ok = await rawRequest(
        socket,
        `${JSON.stringify({ version: 1, command: 'clients list', input: { organizationId: 1 } })}\n`,
      );
      expect(ok).toEqual([
        {
          ok: true,
          result: {
            clients: [expect.objectContaining({ clientId: serve.listening.demo!.clientId, organizationId: 1 })],
          },
        },
      ]);
      const version = await rawRequest(
        socket,
        `${JSON.stringify({ version: 2, command: 'clients list', input: { organizationId: 1 } })}\n`,
      );
      expect(version).toEqual([
        {
          ok: false,
          error: {
            message: expect.stringMatching(/speaks admin protocol 1, this command 2; use the same version/),
            exitCode: 1,
          },
        },
      ]);
      const unknown = await rawRequest(
        socket,
        `${JSON.stringify({ version: 1, command: 'keys frobnicate', input: {} })}\n`,
      );
      expect(unknown).toEqual([
        { ok: false, error: { message: expect.stringMatching(/has no admin command "keys frobnicate"/), exitCode: 1 } },
      ]);
      const wrong = await rawRequest(
        socket,
        `${JSON.stringify({ version: 1, command: 'clients list', input: { organizationId: 'one' } })}\n`,
      );
      expect(wrong).toEqual([
        {
          ok: false,
          error: { message: expect.stringMatching(/the input of "clients list" does not match/), exitCode: 2 },
        },
      ]);
      const garbage = await rawRequest(socket, 'hello\n');
      expect(garbage).toEqual([
        { ok: false, error: { message: expect.stringMatching(/not a JSON line/), exitCode: 1 } },
      ]);
      // Nothing of that changed anything: still one organization with one client.
      expect(
        (
          await rawRequest(
            socket,
            `${JSON.stringify({ version: 1, command: 'clients list', input: { organizationId: 1 } })}\n`,
          )
        )[0]!.result.clients,
      ).toHaveLength(1);
    } finally {
      expect(await stopServe(serve)).toBe(0);
    }
  }, 300_000);

  it('a socket that cannot be created stops serve with one line, and the file is free afterwards', async () => {
    const db = path.join(freshDir(), 'adreport.duckdb');
    fs.mkdirSync(`${db}.admin.sock`);
    const refused = await runCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', db]);
    expectOneLine(refused, 1, new RegExp(`^adreport: cannot create the admin socket ${escape(db)}\\.admin\\.sock: `));
    expect((await runCli(['orgs', 'create', '--name', 'A', '--db', db])).code).toBe(0);
  });
});

describe('a --db that does not exist', () => {
  const commands: Array<[string, string[]]> = [
    ['clients create', ['clients', 'create', '--org', '1']],
    ['clients list', ['clients', 'list', '--org', '1']],
    ['clients disable', ['clients', 'disable', '--client-id', 'adr_x']],
    [
      'master-accounts link',
      ['master-accounts', 'link', '--org', '1', '--platform', 'GOOGLE_ADS', '--platform-id', '123-456-7890'],
    ],
    ['sync', ['sync', '--org', '1']],
    ['export', ['export', '--org', '1', '--endpoint', 'campaigns', '--out', 'out.csv']],
  ];

  it.each(commands)(
    '%s refuses it with one line and creates nothing (no file, directory or WAL)',
    async (_name, args) => {
      const cwd = freshDir();
      const relative = await runCli([...args, '--db', 'data/x.duckdb'], {}, { cwd });
      expect(relative.code).toBe(1);
      expect(relative.stdout).toBe('');
      expect(relative.stderr).toBe('adreport: data/x.duckdb does not exist; check --db or ADREPORT_DB\n');
      const fromEnv = await runCli(args, { ADREPORT_DB: 'elsewhere/y.duckdb' }, { cwd });
      expect(fromEnv.stderr).toBe('adreport: elsewhere/y.duckdb does not exist; check --db or ADREPORT_DB\n');
      expect(fs.readdirSync(cwd)).toEqual([]);
    },
    60_000,
  );

  it('a usage error is still a usage error (exit 2), checked before the file', async () => {
    const cwd = freshDir();
    const result = await runCli(
      ['export', '--org', '1', '--endpoint', 'campaigns', '--query', 'statistics=bogus', '--db', 'data/x.duckdb'],
      {},
      { cwd },
    );
    expectOneLine(result, 2, /^adreport: --query: .*unknown statistic "bogus"/);
    expect(fs.readdirSync(cwd)).toEqual([]);
  }, 300_000);

  it('orgs create starts a new file: the first organization of a new installation', async () => {
    const cwd = freshDir();
    const result = await runCli(
      ['orgs', 'create', '--name', 'First', '--db', 'data/new.duckdb', '--json'],
      {},
      { cwd },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ organization: { id: 1, name: 'First' } });
    expect(fs.existsSync(path.join(cwd, 'data', 'new.duckdb'))).toBe(true);
  });
});

describe('clients disable --help', () => {
  it("states the code's behaviour: at once through a running server, and the server's re-read interval", async () => {
    const refreshSeconds = serviceConfigSchema.parse({}).clientStatusRefreshMs / 1000;
    const help = await runCli(['clients', 'disable', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`every ${refreshSeconds} s`);
    expect(help.stdout).toMatch(/refused at once/);
    expect(help.stdout).not.toMatch(/60 s/);
  });
});
