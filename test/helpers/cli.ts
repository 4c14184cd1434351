import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

export const CLI = path.resolve('dist/cli.cjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bin the way an operator does, with a clean ADREPORT_* environment. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: options.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  listening: {
    url: string;
    port: number;
    httpPort: number | null;
    adminSocket: string;
    demo: { organizationId: number; clientId: string; clientSecret: string } | null;
  };
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts `adreport serve --json` and resolves with its listening line. */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--json', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, listening: JSON.parse(line), exited, stderr: () => stderr }));
    exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
  });
}

/** SIGTERM, then the exit code (0 after a clean stop). */
export async function stopServe(serve: ServeProcess): Promise<number | null> {
  serve.child.kill('SIGTERM');
  return serve.exited;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // The bin sizes libuv's pool itself unless told to; tests of that must not inherit a size.
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('ADREPORT_') && key !== 'UV_THREADPOOL_SIZE') env[key] = value;
  // `serve --demo` would also import demo accounts' 400 days of history in the background: the
  // demo data has its own test (demo-data.test.ts); elsewhere it would only load the machine.
  return { ...env, ADREPORT_DEMO_DATA: 'false', ...extra };
}
