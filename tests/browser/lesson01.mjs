// lesson01.mjs: in Debian's chromium, opens lesson 01 served by Jupyter Notebook, clears it, runs all cells from the menu and checks what is rendered.
// usage: node lesson01.mjs URL SCREENSHOT.png USER_DATA_DIR
import { launchChromium } from './chromium.mjs';

const [url, screenshot, userDataDir] = process.argv.slice(2);
if (!url || !screenshot || !userDataDir) {
  console.error('usage: node lesson01.mjs URL SCREENSHOT.png USER_DATA_DIR');
  process.exit(2);
}
const RUN_TIMEOUT_MS = 600_000;

function fail(msg) {
  throw new Error(msg);
}

const context = await launchChromium(userDataDir);
try {
  const page = context.pages()[0] ?? await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });

  // The notebook is loaded and its kernel (wordlab) is connected and idle.
  await page.waitForSelector('#notebook-container .cell', { timeout: 60_000 });
  await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 120_000 });
  const kernelName = await page.textContent('.kernel_indicator_name');
  if (!/wordlab/.test(kernelName ?? '')) fail(`the notebook runs kernel "${kernelName}", not wordlab`);

  // Start from a notebook without outputs, so that everything checked below was produced now.
  await page.click('#celllink');
  await page.hover('#all_outputs');
  await page.click('#clear_all_output');
  await page.waitForFunction(() => document.querySelectorAll('.output_area').length === 0, null, { timeout: 30_000 });

  // Cell > Run All.
  await page.click('#celllink');
  await page.click('#run_all_cells');

  // Done when every code cell shows an execution count ("In [n]:", not "In [*]:" or "In [ ]:") and the kernel is idle.
  await page.waitForFunction(() => {
    const prompts = [...document.querySelectorAll('.code_cell .input_prompt')].map((p) => p.textContent.replace(/\s/g, ''));
    return prompts.length > 0 && prompts.every((p) => /\[\d+\]/.test(p)) &&
      document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null;
  }, null, { timeout: RUN_TIMEOUT_MS, polling: 500 });

  const report = await page.evaluate(() => {
    const cells = [...document.querySelectorAll('.code_cell')];
    const counts = cells.map((c) => Number((c.querySelector('.input_prompt').textContent.match(/\[(\d+)\]/) || [])[1]));
    const tables = [...document.querySelectorAll('.output_area table')];
    const headTable = tables.find((t) => {
      const head = [...t.querySelectorAll('th')].map((th) => th.textContent.trim());
      return head.includes('Head') && head.includes('dog') && head.includes('hat') && t.querySelectorAll('tr').length >= 5;
    });
    const svgs = [...document.querySelectorAll('.output_area .output_svg svg, .output_area svg')];
    const heat = svgs.filter((s) => s.querySelectorAll('rect').length >= 30);
    if (headTable) headTable.setAttribute('data-wordlab-check', 'head-table');
    return {
      cells: cells.length,
      counts,
      withOutput: cells.filter((c) => c.querySelector('.output_area')).length,
      errors: [...document.querySelectorAll('.output_error, .output_area .output_stderr')]
        .map((e) => e.textContent).filter((t) => /Error/.test(t)).slice(0, 3),
      headTable: headTable ? headTable.querySelectorAll('tr').length : 0,
      headTableHeavy: headTable ? headTable.querySelectorAll('td[style*="background"]').length : 0,
      heatMaps: heat.length,
    };
  });
  console.log(JSON.stringify(report));
  if (report.errors.length) fail(`errors in the outputs: ${report.errors.join(' | ')}`);
  const expected = report.counts.map((_, i) => i + 1);
  if (JSON.stringify(report.counts) !== JSON.stringify(expected))
    fail(`execution counts ${report.counts} are not 1..${report.cells}`);
  if (report.withOutput !== report.cells) fail(`${report.cells - report.withOutput} code cells have no output`);
  if (report.headTable < 5) fail('the head table (an HTML table with a row per head) is not rendered');
  if (report.heatMaps < 1) fail('no heat map (an SVG) is rendered');
  if (problems.length) fail(problems.join('; '));

  // The head table at the top of the view, the heat map below it.
  await page.evaluate(() => document.querySelector('[data-wordlab-check="head-table"]').closest('.cell').scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: screenshot });
  console.log(`screenshot: ${screenshot}`);
} finally {
  await context.close();
}
