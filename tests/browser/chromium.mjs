// chromium.mjs: Debian's chromium, headless, with a private profile, as the browser tests drive it through playwright-core.
import { chromium } from 'playwright-core';

// Returns playwright's persistent context on USER_DATA_DIR with a window of WIDTH x HEIGHT.
export function launchChromium(userDataDir, width, height) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width, height },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
