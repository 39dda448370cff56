// Debian's chromium, driven by playwright-core, for the browser tests of every package. `.ci/run`
// installs it; the flags keep it off the network this machine does not have.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const chromiumAvailable = () => existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  if (!chromiumAvailable())
    throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for browser tests`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
