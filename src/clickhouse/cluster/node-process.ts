import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { nodeFiles } from './cluster-state.js';
import { LocalClusterError } from './local-cluster-error.js';

/** One node's process as the launcher runs it. */
export interface NodeProcessSpec {
  /** s1r2, for messages. */
  readonly label: string;
  readonly nodeDir: string;
  readonly httpPort: number;
  readonly tcpPort: number;
}

/**
 * Keeps the process and its listeners alive: clickhouse-local serves while its last query runs,
 * and this one sleeps a second per row for about 31 years, waking once a second. A signal ends it.
 */
const SERVE_QUERY =
  'SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; ' +
  'SELECT sleepEachRow(1) FROM numbers(1000000000) SETTINGS max_block_size = 1 FORMAT Null';

/**
 * Starts the node detached (its own process group, stdio to node.log, not waited for), so it
 * outlives the process that started it; writes its pid file. Returns the pid.
 */
export function spawnNode(launcher: string, libchdb: string, spec: NodeProcessSpec): number {
  const files = nodeFiles(spec.nodeDir);
  fs.mkdirSync(files.data, { recursive: true });
  const out = fs.openSync(files.log, 'a');
  try {
    const child = spawn(
      launcher,
      [
        libchdb,
        `--path=${files.data}`,
        `--http_port=${spec.httpPort}`,
        `--tcp_port=${spec.tcpPort}`,
        '--listen_host=127.0.0.1',
        `--config-file=${files.config}`,
        // clickhouse-local logs at trace whatever the config's <level> says; this one it obeys.
        '--log-level=warning',
        '--multiquery',
        `--query=${SERVE_QUERY}`,
      ],
      { cwd: spec.nodeDir, detached: true, stdio: ['ignore', out, out] },
    );
    if (child.pid === undefined) throw new Error(`could not start ${launcher} for node ${spec.label}`);
    // A spawn that fails later (ENOENT) says so here, not as an unhandled 'error' event.
    child.on('error', () => undefined);
    child.unref();
    fs.writeFileSync(files.pid, `${child.pid}\n`);
    return child.pid;
  } finally {
    fs.closeSync(out);
  }
}

/**
 * Whether `pid` is a live process serving this node's data: not gone, not a zombie nobody has
 * reaped yet (a node whose starter exited is reparented to whatever reaps, maybe nothing), and
 * not another program that got the number since.
 */
export function isNodeProcess(pid: number, nodeDir: string): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself hold ') '.
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes(`--path=${nodeFiles(nodeDir).data}`);
  } catch {
    return false;
  }
}

/**
 * Whether the node's process has ended: no process, a zombie or dead one, or another program
 * that got the number since. Stricter than `!isNodeProcess`: an exiting process whose memory is
 * already released has an empty cmdline while the kernel still tears it down (its ports and
 * files still held), and a stop that returned then would race whatever comes next.
 */
export function nodeProcessEnded(pid: number, nodeDir: string): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) return true;
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return argv !== '' && !argv.split('\0').includes(`--path=${nodeFiles(nodeDir).data}`);
  } catch {
    return true;
  }
}

/** The pid of the node's running process from its pid file, or undefined (no file, or a stale one). */
export function runningPid(nodeDir: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(nodeFiles(nodeDir).pid, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && isNodeProcess(pid, nodeDir) ? pid : undefined;
}

/** Polls `done` every `everyMs` until true or the ceiling; returns whether it came. */
export async function waitFor(done: () => boolean | Promise<boolean>, ceilingMs: number, everyMs = 100) {
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Signals the node and waits until its process is gone; a SIGTERM not obeyed within
 * `ceilingMs` becomes a SIGKILL. Removes the pid file. Nothing else: the data stays.
 */
export async function stopNodeProcess(
  nodeDir: string,
  signal: NodeJS.Signals,
  ceilingMs = 60_000,
): Promise<number | undefined> {
  const pid = runningPid(nodeDir);
  if (pid !== undefined) {
    const gone = () => nodeProcessEnded(pid, nodeDir);
    send(pid, signal);
    // A node ends within its current second of sleep, then shuts its listeners and tables down.
    if (!(await waitFor(gone, ceilingMs))) {
      send(pid, 'SIGKILL');
      if (!(await waitFor(gone, 30_000)))
        throw new Error(`node process ${pid} (${nodeDir}) is still there 30 s after SIGKILL`);
    }
  }
  fs.rmSync(nodeFiles(nodeDir).pid, { force: true });
  return pid;
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Waits until the node answers `SELECT 1` over HTTP. A process that ends first fails at once with
 * the end of its log (a port taken, a broken config); one that never answers, at the ceiling.
 */
export async function waitAnswering(spec: NodeProcessSpec, pid: number, ceilingMs: number): Promise<void> {
  let exited = false;
  const answered = await waitFor(async () => {
    if (await answers(spec.httpPort)) return true;
    exited = !isNodeProcess(pid, spec.nodeDir);
    return exited;
  }, ceilingMs);
  if (answered && !exited) return;
  const files = nodeFiles(spec.nodeDir);
  const tail = lastLines(files.log, 3) || lastLines(files.errorLog, 3) || '(nothing logged)';
  if (exited) {
    fs.rmSync(files.pid, { force: true });
    throw new LocalClusterError(
      'node-exited',
      `node ${spec.label} (pid ${pid}) exited before answering on port ${spec.httpPort}; the end of ${files.log}: ${tail}`,
    );
  }
  throw new LocalClusterError(
    'node-silent',
    `node ${spec.label} (pid ${pid}) did not answer SELECT 1 on port ${spec.httpPort} within ${ceilingMs / 1000} s; the end of ${files.log}: ${tail}`,
  );
}

async function answers(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/?query=SELECT%201`, { signal: AbortSignal.timeout(5_000) });
    return response.ok && (await response.text()).trim() === '1';
  } catch {
    return false;
  }
}

/** The last `count` non-empty lines of a file, joined on one line (each cut at 300 characters). */
function lastLines(file: string, count: number): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^Logging \w+ to /.test(l))
    .slice(-count)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}...` : l))
    .join(' | ');
}
