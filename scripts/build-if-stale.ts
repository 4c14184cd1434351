import { spawnSync } from 'node:child_process';
import { distIsCurrent } from './build-inputs.js';

/**
 * `npm run build` unless dist/ already holds a build of the current sources (its stamp, see
 * build-inputs.ts): the bench runs after `npm ci` built it, and .ci/run runs the bench twice,
 * which rebuilt the same dist/ twice (~40 s each on 2 cores).
 */
if (distIsCurrent()) {
  console.log('dist/ is a build of the current sources: not rebuilt');
} else {
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
