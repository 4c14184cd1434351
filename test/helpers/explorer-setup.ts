import { buildExplorer } from '../../scripts/explorer-bundle.js';

/** The explorer bundle, built once per run whichever tiers ask (their setups share this process). */
export function explorerOnce(): Promise<unknown> {
  const shared = globalThis as { __adreportExplorer?: Promise<unknown> };
  return (shared.__adreportExplorer ??= buildExplorer());
}

/**
 * The `service` tier imports src directly and builds nothing of it; every service it starts
 * serves the explorer from dist/explorer, which esbuild bundles in well under a second.
 */
export default async function setup(): Promise<void> {
  await explorerOnce();
}
