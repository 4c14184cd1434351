import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { LocalClusterError } from './local-cluster-error.js';

/**
 * The node launcher: chDB's libchdb.so runs clickhouse-local's whole entry point with an argv
 * (`chdb_query_cmdline`), which can open HTTP and TCP listeners, but npm ships no executable
 * for it, and neither the Node chdb Session (no server callbacks) nor an FFI (its own small stack)
 * can call it. So a ten-line C program does, compiled on the machine at `up` time: no binary is
 * committed or downloaded. Its first argument is libchdb.so, the rest clickhouse-local's argv.
 */
export const LAUNCHER_SOURCE = `#include <dlfcn.h>
#include <stdio.h>
typedef void *(*cmdline_fn)(int, char **);
typedef const char *(*error_fn)(void *);
int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: launcher LIBCHDB ARGS...\\n"); return 2; }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) { fprintf(stderr, "%s\\n", dlerror()); return 3; }
  cmdline_fn run = (cmdline_fn)dlsym(lib, "chdb_query_cmdline");
  error_fn err = (error_fn)dlsym(lib, "chdb_result_error");
  if (!run || !err) { fprintf(stderr, "libchdb.so lacks chdb_query_cmdline\\n"); return 3; }
  argv[1] = "clickhouse";
  void *result = run(argc - 1, argv + 1);
  const char *e = result ? err(result) : "no result";
  if (e) { fprintf(stderr, "%s\\n", e); return 1; }
  return 0;
}
`;

const COMPILERS = ['cc', 'gcc'];
const LIBCHDB_PACKAGE = '@chdb/lib-linux-x64-gnu';

/** The first `cc` or `gcc` on the search path, or undefined. */
export function findCompiler(searchPath: string = process.env.PATH ?? ''): string | undefined {
  for (const name of COMPILERS)
    for (const dir of searchPath.split(path.delimiter)) {
      if (dir === '') continue;
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  return undefined;
}

/** libchdb.so of the chdb package npm installed (its platform package), resolved like an import. */
export function libchdbPath(): string {
  const missing = `libchdb.so not found: the npm package ${LIBCHDB_PACKAGE} (installed with chdb) is missing; run npm ci`;
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${LIBCHDB_PACKAGE}/package.json`);
  } catch {
    throw new LocalClusterError('no-libchdb', missing);
  }
  const library = path.join(path.dirname(manifest), 'libchdb.so');
  if (!fs.existsSync(library)) throw new LocalClusterError('no-libchdb', missing);
  return library;
}

/**
 * `<binDir>/launcher`, compiled from LAUNCHER_SOURCE unless the one there was compiled from the
 * same source. The binary appears under its name only once whole (compiled aside, renamed).
 */
export async function buildLauncher(binDir: string): Promise<string> {
  const source = path.join(binDir, 'launcher.c');
  const launcher = path.join(binDir, 'launcher');
  if (readOrUndefined(source) === LAUNCHER_SOURCE && isExecutable(launcher)) return launcher;
  const compiler = findCompiler();
  if (compiler === undefined)
    throw new LocalClusterError(
      'no-compiler',
      'no C compiler found to build the ClickHouse node launcher; install one with: apt-get install -y gcc',
    );
  fs.mkdirSync(binDir, { recursive: true });
  fs.writeFileSync(source, LAUNCHER_SOURCE);
  const partial = `${launcher}.${process.pid}.tmp`;
  try {
    await promisify(execFile)(compiler, ['-O1', '-o', partial, source, '-ldl'], { timeout: 120_000 });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    const detail = stderr.split('\n')[0] || (error as Error).message.split('\n')[0];
    throw new LocalClusterError('compile-failed', `${compiler} could not build ${source}: ${detail}`);
  }
  fs.renameSync(partial, launcher);
  return launcher;
}

function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
