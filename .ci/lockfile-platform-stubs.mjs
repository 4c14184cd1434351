// The npm registry reachable here serves only the linux-x64 builds of some native packages, so
// `npm install` drops the other platforms' optional binaries from package-lock.json and `npm ci`
// then refuses the lockfile as out of sync. This adds an entry for each missing optional package,
// with the os/cpu/libc that its name says, so npm ci skips it on this platform without fetching.
// Run it after any `npm install` that changes the lockfile: node .ci/lockfile-platform-stubs.mjs
import fs from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'));
const PLATFORM = /-(darwin|linux|win32)-(arm64|x64)(-musl)?$/;
let added = 0;
for (const entry of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    // npm hoists these leaf binaries to the top level.
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const match = PLATFORM.exec(name);
    if (!match) continue;
    const [, os, cpu, musl] = match;
    lock.packages[key] = {
      version,
      cpu: [cpu],
      ...(os === 'linux' ? { libc: [musl ? 'musl' : 'glibc'] } : {}),
      license: entry.license ?? 'MIT',
      optional: true,
      os: [os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
fs.writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile: ${added} platform stub entr${added === 1 ? 'y' : 'ies'} added`);
