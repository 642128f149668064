// chromium.mjs: Debian's chromium through playwright-core, headless, as the browser tests and benchmarks launch it.
import { chromium } from 'playwright-core';

// A persistent context in userDataDir (its first page is context.pages()[0]).
export function launchChromium(userDataDir, viewport = { width: 1280, height: 900 }) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
