#!/usr/bin/env node
// The bin entry is CommonJS on purpose. libuv's pool runs every DuckDB call, scrypt and file I/O,
// and 4 read connections plus the writer would starve its default 4 threads (DESIGN D1), but it
// can only be sized before it starts: Node's ES module loader reads files through the pool, so
// by the first line of an ES module entry it already runs 4 threads (measured: an ES module
// entry here served with 4 pool threads whatever it set). A CommonJS entry runs first.
import fs = require('node:fs');

// 14: up to 10 DuckDB connections may each have a call on the pool at once (the writer, 4 cheap
// reads, 3 report slots, 2 exports), and scrypt, compression and file I/O need threads beside them.
process.env.UV_THREADPOOL_SIZE ??= '14';
// Node's own threads (the event loop's, V8's platform workers), listed before libuv's pool and
// DuckDB start theirs, which `serve` then ranks below them (src/runtime/thread-priority.ts). Its
// threadIds() is in an ES module, so this one line reads /proc itself (a CommonJS copy to share
// would not load in vitest, which cannot transform .cts sources); off Linux there is no list.
let nodeThreads: ReadonlySet<number> | undefined;
try {
  nodeThreads = new Set(fs.readdirSync('/proc/self/task').map(Number));
} catch {
  nodeThreads = undefined;
}

void import('./cli/run.js').then(async ({ runCli }) => {
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    nodeThreads,
  });
});
