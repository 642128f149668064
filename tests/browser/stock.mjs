// stock.mjs: in Debian's chromium, a lesson in a stock JupyterLab 4 where only `wordlab install-kernel --prefix` was
// done (tests/browser/stock.sh): the extension is loaded (the wordlab file type, its cells highlighted), Run All
// shows the head table and the pictures, and no output is a JSON tree; screenshots of the run.
// usage: node stock.mjs BASE_URL TOKEN SCREENSHOT_DIR USER_DATA_DIR LESSON.ipynb
import { launchChromium } from './chromium.mjs';
import { CURRENT, fail, highlighted, kernelReady, menu, openFile, outputs, shooter } from './jupyterlab.mjs';
import path from 'node:path';

const [base, token, shots, userDataDir, lesson] = process.argv.slice(2);
if (!base || !token || !shots || !userDataDir || !lesson) {
  console.error('usage: node stock.mjs BASE_URL TOKEN SCREENSHOT_DIR USER_DATA_DIR LESSON.ipynb');
  process.exit(2);
}
const shot = shooter(shots);
const context = await launchChromium(userDataDir, { width: 1400, height: 900 });
const problems = [];
const page = context.pages()[0] ?? await context.newPage();
try {
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/lab?reset&token=${token}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached', timeout: 120_000 });
  await page.waitForSelector(`${CURRENT} .jp-Launcher .jp-LauncherCard`, { timeout: 60_000 });
  // The extension's launcher card is there: JupyterLab found the extension that install-kernel put in the prefix.
  await page.waitForSelector(`${CURRENT} .jp-LauncherCard[title="Create a new wordlab script (.wlab)"]`, { timeout: 30_000 });

  await openFile(page, lesson);
  await page.waitForSelector(`${CURRENT} .jp-Notebook .jp-Cell`, { timeout: 60_000 });
  await kernelReady(page);
  // The first code cell's command is coloured as a command.
  await page.waitForFunction((current) => document.querySelector(`${current} .jp-CodeCell .cm-line span`), CURRENT, { timeout: 30_000 });
  const words = await highlighted(page, `${CURRENT} .jp-CodeCell`);
  const commands = words.filter(([, role]) => role === 'keyword').map(([w]) => w);
  console.log(`commands coloured in the first code cell: ${commands.join(' ')}`);
  if (!commands.length) fail(`the stock JupyterLab colours no command in ${lesson}: ${JSON.stringify(words.slice(0, 12))}`);

  await menu(page, 'Run', 'Run All Cells');
  await page.waitForFunction((current) => {
    const prompts = [...document.querySelectorAll(`${current} .jp-CodeCell .jp-InputPrompt`)].map((p) => p.textContent.replace(/\s/g, ''));
    return prompts.length > 0 && prompts.every((p) => /\[\d+\]/.test(p)) &&
      document.querySelector(`${current} .jp-Notebook-ExecutionIndicator[data-status="idle"]`) !== null;
  }, CURRENT, { timeout: 600_000, polling: 500 });
  const ran = await outputs(page);
  console.log(`${lesson} run all in the stock JupyterLab: ${JSON.stringify(ran)}`);
  if (ran.errors.length) fail(`error output: ${ran.errors.join(' | ')}`);
  if (ran.jsonTrees) fail(`${ran.jsonTrees} outputs show a JSON tree`);
  if (ran.headTableRows < 5) fail('no head table (a row per head) after Run All');
  if (ran.svg < 1 || ran.heatMaps < 1) fail(`${ran.svg} pictures, ${ran.heatMaps} heat maps after Run All`);
  if (ran.shaded < 1) fail('no shaded output after Run All');
  await page.evaluate((current) => document.querySelector(`${current} .jp-OutputArea-output table th`)?.closest('.jp-Cell').scrollIntoView({ block: 'start' }), CURRENT);
  await shot(page, 'stock-table');
  await page.evaluate((current) => document.querySelector(`${current} .jp-RenderedHTMLCommon svg, ${current} .jp-RenderedSVG img`)?.closest('.jp-Cell').scrollIntoView({ block: 'start' }), CURRENT);
  await shot(page, 'stock-picture');
  if (problems.length) fail(`the page reported: ${problems.join(' | ')}`);
  console.log(`screenshots: ${shot.list.join(' ')}`);
  console.log('stock.mjs: all checks passed');
} catch (e) {
  await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => {});
  throw e;
} finally {
  await context.close();
}
