import fs from 'node:fs';
import path from 'node:path';
import { runCli, startServe, type CliResult, type ServeProcess } from './cli.js';
import { basic, FORM, HttpClient } from './http.js';

/**
 * Replicas of the replicated deployment (issue 37): processes of the built bin,
 * `adreport serve --store URL --files-dir DIR`, sharing one PostgreSQL database and one files
 * directory (token key file, webhook key file and the self-signed TLS pair under DIR/adreport.tls/,
 * which every replica serves alike, so one CA verifies them all).
 */
export interface Replica {
  readonly name: string;
  readonly serve: ServeProcess;
  readonly url: string;
  readonly port: number;
  /** HTTPS to this replica only, verified against the shared self-signed certificate. */
  readonly http: HttpClient;
  /** Resolves when the process has exited (code, or the signal that ended it). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True until the process has exited. */
  alive(): boolean;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** kill -9: no shutdown, no goodbye to PostgreSQL; resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM; resolves with the exit code (0 after a clean stop). */
  stop(): Promise<number | null>;
}

export interface ReplicaSet {
  readonly storeUrl: string;
  readonly filesDir: string;
  /** The shared self-signed certificate (PEM), read once the first replica made it. */
  readonly ca: string;
  /** Every replica started, in order, the killed ones too. */
  readonly all: readonly Replica[];
  /** Replicas whose process still runs. */
  running(): Replica[];
  /** Starts one more replica on the same store and files (after a kill, or to grow the set). */
  start(name?: string, env?: Record<string, string>): Promise<Replica>;
  /** Runs an admin command of the bin directly against the store: `--store URL --files-dir DIR --json` added. */
  admin(args: string[]): Promise<CliResult>;
  /** Stops every replica still running (SIGTERM, then SIGKILL for one that hangs). */
  close(): Promise<void>;
}

export interface ReplicaOptions {
  storeUrl: string;
  /** The shared files directory; made when missing. */
  filesDir: string;
  /** How many to start (default 3): the first alone (it migrates and makes the key files and TLS pair), then the rest together. */
  count?: number;
  /** ADREPORT_* settings for every replica (rate limits are lifted unless given). */
  env?: Record<string, string>;
}

/** Lifted so a test's burst of requests through one replica is never a 429. */
const DEFAULT_ENV: Record<string, string> = {
  ADREPORT_RATE_LIMIT_PER_SECOND: '10000',
  ADREPORT_RATE_LIMIT_BURST: '10000',
  ADREPORT_TOKEN_RATE_LIMIT_PER_SECOND: '10000',
  ADREPORT_TOKEN_RATE_LIMIT_BURST: '10000',
};

const NAMES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export async function startReplicas(options: ReplicaOptions): Promise<ReplicaSet> {
  fs.mkdirSync(options.filesDir, { recursive: true });
  const all: Replica[] = [];
  const env = { ...DEFAULT_ENV, ...options.env };
  let ca: string | undefined;

  const startOne = async (name: string, extraEnv: Record<string, string> = {}): Promise<Replica> => {
    const serve = await startServe(['--store', options.storeUrl, '--files-dir', options.filesDir], {
      ...env,
      ...extraEnv,
    });
    ca ??= fs.readFileSync(path.join(options.filesDir, 'adreport.tls', 'cert.pem'), 'utf8');
    const replica = makeReplica(name, serve, ca);
    all.push(replica);
    return replica;
  };

  const set: ReplicaSet = {
    storeUrl: options.storeUrl,
    filesDir: options.filesDir,
    get ca() {
      if (ca === undefined) throw new Error('no replica has started yet');
      return ca;
    },
    all,
    running: () => all.filter((r) => r.alive()),
    start: (name, extraEnv) => startOne(name ?? NAMES[all.length] ?? `R${all.length}`, extraEnv),
    admin: (args) => runCli([...args, '--store', options.storeUrl, '--files-dir', options.filesDir, '--json']),
    async close() {
      await Promise.all(
        all
          .filter((r) => r.alive())
          .map(async (r) => {
            const code = r.stop();
            const timer = setTimeout(() => r.serve.child.kill('SIGKILL'), 30_000);
            await code;
            clearTimeout(timer);
          }),
      );
      for (const r of all) r.http.close();
    },
  };

  const count = options.count ?? 3;
  try {
    if (count > 0) await set.start();
    await Promise.all(Array.from({ length: count - 1 }, (_, i) => set.start(NAMES[i + 1])));
  } catch (error) {
    await set.close();
    throw error;
  }
  // Started together, the later ones may have finished in any order: keep A, B, C in that order.
  all.sort((a, b) => a.name.localeCompare(b.name));
  return set;
}

function makeReplica(name: string, serve: ServeProcess, ca: string): Replica {
  let alive = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    serve.child.once('exit', (code, signal) => {
      alive = false;
      resolve({ code, signal });
    }),
  );
  // A process that had exited before this listener went in.
  if (serve.child.exitCode !== null || serve.child.signalCode !== null) alive = false;
  return {
    name,
    serve,
    url: serve.listening.url,
    port: serve.listening.port,
    http: new HttpClient(serve.listening.url, ca),
    exited,
    alive: () => alive,
    stderr: serve.stderr,
    async kill9() {
      if (!alive) return;
      serve.child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!alive) return (await exited).code;
      serve.child.kill('SIGTERM');
      return (await exited).code;
    },
  };
}

/** A client-credentials token, issued by the given replica. */
export async function issueToken(replica: Replica, clientId: string, clientSecret: string): Promise<string> {
  const res = await replica.http.request('POST', '/token', {
    headers: { authorization: basic(clientId, clientSecret), 'content-type': FORM },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token from replica ${replica.name}: ${res.status} ${res.text}`);
  return res.json.access_token as string;
}

/** A tenant made with the admin CLI against the store: an organization and a client of both scopes. */
export async function createTenant(
  set: ReplicaSet,
  name: string,
): Promise<{ organizationId: number; clientId: string; clientSecret: string }> {
  const org = await set.admin(['orgs', 'create', '--name', name]);
  if (org.code !== 0) throw new Error(`orgs create exited ${org.code}: ${org.stderr}`);
  const organizationId = JSON.parse(org.stdout).organization.id as number;
  const client = await set.admin(['clients', 'create', '--org', String(organizationId)]);
  if (client.code !== 0) throw new Error(`clients create exited ${client.code}: ${client.stderr}`);
  const { clientId, clientSecret } = JSON.parse(client.stdout) as { clientId: string; clientSecret: string };
  return { organizationId, clientId, clientSecret };
}
