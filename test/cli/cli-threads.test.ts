import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

/**
 * The bin (a CommonJS entry) sizes libuv's pool before Node's ES module loader starts it, and
 * `serve` lowers the priority of the threads that run queries below the event loop's.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** Nice value of each thread of a process, by thread id (Linux /proc). */
function niceByThread(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the parenthesised name start with the state (field 3); nice is field 19.
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

async function serveAndLook(env: Record<string, string> = {}): Promise<{ nice: Map<number, number>; pid: number }> {
  const dir = tempDir('adreport-threads-');
  dirs.push(dir);
  const serve: ServeProcess = await startServe(['--db', path.join(dir, 'a.duckdb')], env);
  try {
    return { nice: niceByThread(serve.child.pid!), pid: serve.child.pid! };
  } finally {
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  }
}

const count = (nice: Map<number, number>, value: number) => [...nice.values()].filter((n) => n === value).length;

describe('threads of adreport serve', () => {
  it("libuv's pool has 14 threads; they and DuckDB's workers get nice 10, the event loop's thread and Node's own keep 0", async () => {
    const { nice, pid } = await serveAndLook();
    expect(nice.get(pid)).toBe(0);
    // 14 pool threads and at least one DuckDB worker (threads = cores - 1 besides the caller's).
    expect(count(nice, 10)).toBeGreaterThanOrEqual(15);
    // Node's own: the main thread, V8's platform workers and a few more, at least 5 in Node 20.
    expect(count(nice, 0)).toBeGreaterThanOrEqual(5);
    expect(count(nice, 0) + count(nice, 10)).toBe(nice.size);
  });

  it("ADREPORT_DB_WORKER_NICE sets the value (0: every thread as it was); an operator's UV_THREADPOOL_SIZE is kept", async () => {
    const lowered = await serveAndLook({ ADREPORT_DB_WORKER_NICE: '4' });
    expect(count(lowered.nice, 4)).toBeGreaterThanOrEqual(11);
    const untouched = await serveAndLook({ ADREPORT_DB_WORKER_NICE: '0', UV_THREADPOOL_SIZE: '6' });
    expect(count(untouched.nice, 0)).toBe(untouched.nice.size);
    // Eight pool threads fewer than the default's fourteen.
    expect(untouched.nice.size).toBe(lowered.nice.size - 8);
  });

  it('a nice value outside 0..19 is refused at start', async () => {
    const dir = tempDir('adreport-threads-');
    dirs.push(dir);
    await expect(startServe(['--db', path.join(dir, 'a.duckdb')], { ADREPORT_DB_WORKER_NICE: '25' })).rejects.toThrow(
      /database\.workerNice/,
    );
  });
});
