import { execFileSync } from 'node:child_process';

/** CLI tests run the real bin (dist/cli.cjs), so it is compiled from the current sources first. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
