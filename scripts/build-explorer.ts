import { buildExplorer, EXPLORER_OUT } from './explorer-bundle.js';

/** `npm run build`'s explorer step: the browser bundle under dist/explorer, with its sizes. */
const started = Date.now();
const files = await buildExplorer();
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`explorer: ${EXPLORER_OUT} (${Date.now() - started} ms)`);
for (const file of files)
  console.log(
    `  ${file.name.padEnd(14)} ${kb(file.bytes).padStart(9)}  gzip ${kb(file.gzipBytes).padStart(8)}  br ${kb(file.brotliBytes).padStart(8)}`,
  );
