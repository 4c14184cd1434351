import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE = path.join(ROOT, 'src', 'explorer');
/** Where the service looks for the explorer (src/http/explorer-assets.ts). */
export const EXPLORER_OUT = path.join(ROOT, 'dist', 'explorer');
/** Files copied as they are, beside the bundle. */
const STATIC_FILES = ['index.html', 'icon.svg'];

export interface BuiltFile {
  readonly name: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly brotliBytes: number;
}

/**
 * The browser explorer, bundled: src/explorer/main.ts with the client and uPlot into one minified
 * ES module (explorer.js) and its styles (explorer.css), index.html and the icon beside them, and
 * each file also precompressed (.gz, .br) at the highest levels, once here rather than per request.
 */
export async function buildExplorer(outDir = EXPLORER_OUT): Promise<BuiltFile[]> {
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  await esbuild.build({
    entryPoints: { explorer: path.join(SOURCE, 'main.ts') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'firefox115', 'safari16'],
    tsconfig: path.join(SOURCE, 'tsconfig.json'),
    legalComments: 'eof',
    logLevel: 'warning',
  });
  for (const name of STATIC_FILES) fs.copyFileSync(path.join(SOURCE, name), path.join(outDir, name));
  const built: BuiltFile[] = [];
  for (const name of fs.readdirSync(outDir).sort()) {
    const body = fs.readFileSync(path.join(outDir, name));
    const gzip = zlib.gzipSync(body, { level: 9 });
    const brotli = zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
    fs.writeFileSync(path.join(outDir, `${name}.gz`), gzip);
    fs.writeFileSync(path.join(outDir, `${name}.br`), brotli);
    built.push({ name, bytes: body.length, gzipBytes: gzip.length, brotliBytes: brotli.length });
  }
  return built;
}
