import { execFileSync } from 'node:child_process';
import { buildExplorer } from '../../scripts/explorer-bundle.js';

/**
 * CLI tests run the real bin (dist/cli.cjs), and every service serves the explorer from
 * dist/explorer, so both are built from the current sources first.
 */
export default async function setup(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  await buildExplorer();
}
