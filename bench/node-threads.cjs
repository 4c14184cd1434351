// Preloaded by `npm run bench` (node -r) before tsx's loader starts libuv's pool, so that the
// service inside the bench process runs as the bin runs it (src/cli.cts): a pool of 14 threads,
// and Node's own threads known, so the pool and DuckDB's workers can be ranked below them.
process.env.UV_THREADPOOL_SIZE ??= '14';
const fs = require('node:fs');
if (fs.existsSync('/proc/self/task'))
  globalThis.adreportNodeThreads ??= new Set(fs.readdirSync('/proc/self/task').map(Number));
