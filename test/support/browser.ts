import { existsSync } from 'node:fs';
import puppeteer, { Browser } from 'puppeteer-core';

/** Debian's chromium (scripts/ensure-services.sh installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium for page tests. No browser is downloaded: the machine's own is driven through
 * puppeteer-core, without background networking (this machine's network is closed).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: run scripts/ensure-services.sh or set CHROMIUM_PATH.`);
  }
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
