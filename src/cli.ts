#!/usr/bin/env node
// libuv's pool (default 4) runs every DuckDB call, scrypt and file I/O; 4 read connections plus
// the writer would starve it (DESIGN D1). It must be sized before the pool first starts, so the
// rest of the program is imported only after this line.
process.env.UV_THREADPOOL_SIZE ??= '10';
const { runCli } = await import('./cli/run.js');
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
