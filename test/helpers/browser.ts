import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it); playwright-core never downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL = 'sudo apt-get install -y --no-install-recommends chromium fonts-dejavu-core';

/**
 * Headless Chromium for the explorer's tests. A machine without it fails the test with the command
 * that installs it: the browser tests never skip. The flags keep Chromium off the network it would
 * otherwise call at start (this machine has none), and let it run as root in a container;
 * playwright gives it a fresh profile in a temp dir.
 */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!fs.existsSync(CHROMIUM_PATH))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}. Install it with: ${INSTALL} (or set CHROMIUM_PATH to a Chromium binary).`,
    );
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}
