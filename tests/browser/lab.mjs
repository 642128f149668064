// lab.mjs: in Debian's chromium, drives JupyterLab 4 of the project environment (as `make notebook` serves it) with
// the wordlab extension: the launcher, the four lessons of the working copy (saved pictures on first open, then Run
// All; lesson 03's shaded tokens readable, its next-word table; lesson 04's heat maps with colour bars and axis
// titles), a scratch notebook (completion, tooltip, help, stop, restart, LaTeX by the bundled MathJax, its kernel on
// the ipc transport), a .wlab file highlighted in the editor, a console, the dark theme (lessons 04 and 03 again, the
// shaded tokens still readable), and lesson 01 in Notebook 7 on the same server; a screenshot of each step; any
// console error, a JSON tree, or a request that leaves 127.0.0.1 fails.
// usage: node lab.mjs BASE_URL TOKEN SCREENSHOT_DIR USER_DATA_DIR EXPECT_JSON
//   EXPECT_JSON: {"NN_lesson.ipynb": tests/browser/saved_outputs.py's JSON, ...}
import { launchChromium } from './chromium.mjs';
import { CURRENT, acceptDialog, fail, highlighted, kernelIdle, kernelReady, menu, openFile, outputs, runLastCell, savedShown,
  serverApi, shooter, typeInLastCell } from './jupyterlab.mjs';
import fs from 'node:fs';
import path from 'node:path';

const [base, token, shots, userDataDir, expectJson] = process.argv.slice(2);
if (!base || !token || !shots || !userDataDir || !expectJson) {
  console.error('usage: node lab.mjs BASE_URL TOKEN SCREENSHOT_DIR USER_DATA_DIR EXPECT_JSON');
  process.exit(2);
}
const expected = JSON.parse(expectJson);
const RUN_TIMEOUT_MS = 600_000;
// What each lesson must show after Run All, whatever its saved outputs: the head table, SVG pictures, heat maps
// among them (SVGs of 30 cells or more), outputs shaded by value.
const api = serverApi(base, token);
const shot = shooter(shots);
const MUST_SHOW = {
  '01': { headTable: true, svg: 1, heatMaps: 1, shaded: 1 },
  '02': { headTable: false, svg: 1, heatMaps: 0, shaded: 0 },
  '03': { headTable: false, svg: 0, heatMaps: 0, shaded: 1 },
  '04': { headTable: true, svg: 14, heatMaps: 14, shaded: 1 },
};

// The connection file of the kernel with this id, from the server's runtime directory (JUPYTER_RUNTIME_DIR).
function connectionFile(kernelId) {
  const dir = process.env.JUPYTER_RUNTIME_DIR;
  const file = path.join(dir, `kernel-${kernelId}.json`);
  if (!fs.existsSync(file)) fail(`no connection file ${file} for kernel ${kernelId}`);
  return { dir, info: JSON.parse(fs.readFileSync(file, 'utf8')) };
}

// What the current notebook's outputs show for reading: the loss-shaded tokens' lowest contrast of text against
// background (WCAG 2: (L1 + 0.05) / (L2 + 0.05) of relative luminances), the heat maps with a colour bar and axis
// titles, and the next-word tables with their bars.
async function readability(pg) {
  return pg.evaluate((current) => {
    const lum = (css) => {
      const [r, g, b] = css.match(/[\d.]+/g).slice(0, 3).map((v) => Number(v) / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const tokens = [...document.querySelectorAll(`${current} .jp-OutputArea-output .wordlab-losses .wordlab-token`)];
    let min = Infinity;
    for (const t of tokens) {
      const st = getComputedStyle(t), a = lum(st.color), b = lum(st.backgroundColor);
      min = Math.min(min, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
    }
    const maps = [...document.querySelectorAll(`${current} .jp-OutputArea-output svg.wordlab-heatmap`)];
    return {
      tokens: tokens.length, minContrast: tokens.length ? Math.round(min * 100) / 100 : null,
      heatMaps: maps.length, withBarAndAxes: maps.filter((m) => m.querySelector('g.colourbar') && m.querySelector('text.axis')).length,
      nextTables: document.querySelectorAll(`${current} .jp-OutputArea-output table.wordlab-next-bars`).length,
    };
  }, CURRENT);
}

// The shaded tokens of the current notebook, each readable against its own background (contrast at least 4.5:1).
async function checkContrast(pg, what) {
  // A notebook just opened renders its cells' outputs a little later (JupyterLab 4 defers cells out of view).
  await pg.waitForSelector(`${CURRENT} .jp-OutputArea-output .wordlab-losses .wordlab-token`, { state: 'attached', timeout: 60_000 })
    .catch(() => {});
  const r = await readability(pg);
  console.log(`${what}: ${JSON.stringify(r)}`);
  if (!r.tokens) fail(`${what}: no loss-shaded tokens`);
  if (r.minContrast < 4.5) fail(`${what}: a shaded token's text has contrast ${r.minContrast}:1 against its background (under 4.5:1)`);
  return r;
}

const context = await launchChromium(userDataDir, { width: 1400, height: 900 });
const problems = [];
const page = context.pages()[0] ?? await context.newPage();
try {
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`); });
  // No network at run time: the page asks nothing of any host but the server (MathJax, fonts, news included).
  page.on('request', (r) => { if (!r.url().startsWith(`${base}/`) && !/^(data|blob):/.test(r.url())) problems.push(`a request that leaves the server: ${r.url()}`); });

  // A .wlab file for the editor step, written before the file browser first lists the directory.
  await api('PUT', '/api/contents/scratch.wlab', {
    type: 'file', format: 'text',
    content: '# a wordlab script\nstories = corpus profile=smoke stories=60\nm = model new kind=attention vocab=$stories.vocab seed=11\ntrain $m $stories steps=20 batch=32 "done"\ntrian $m\n',
  });

  await page.goto(`${base}/lab?reset&token=${token}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached', timeout: 120_000 });
  // A fresh server's workspace opens with the launcher.
  await page.waitForSelector(`${CURRENT} .jp-Launcher .jp-LauncherCard`, { timeout: 60_000 });
  await page.waitForFunction(() => [...document.querySelectorAll('.jp-LauncherCard img')].every((i) => i.complete));

  // The launcher: the wordlab kernel with its logo, for notebooks and consoles.
  const launcher = await page.evaluate((current) => [...document.querySelectorAll(`${current} .jp-Launcher-section`)].map((s) => ({
    section: s.querySelector('.jp-Launcher-sectionTitle')?.textContent,
    cards: [...s.querySelectorAll('.jp-LauncherCard')].map((c) => ({
      label: c.querySelector('.jp-LauncherCard-label').textContent,
      logo: c.querySelector('img')?.getAttribute('src') ?? '',
      logoLoaded: (c.querySelector('img')?.naturalWidth ?? 0) > 0,
      icon: c.querySelector('svg')?.getAttribute('data-icon') ?? '',
    })),
  })), CURRENT);
  console.log(`launcher: ${JSON.stringify(launcher)}`);
  for (const section of ['Notebook', 'Console']) {
    const card = launcher.find((s) => s.section === section)?.cards.find((c) => c.label === 'wordlab');
    if (!card) fail(`the launcher has no wordlab card under ${section}`);
    if (!/kernelspecs\/wordlab\/logo-/.test(card.logo) || !card.logoLoaded) fail(`the ${section} card of wordlab shows no logo (${card.logo})`);
  }
  await shot(page, 'launcher');

  // The four lessons: trusted, their saved pictures show on first open; then Run All renders them again.
  for (const [name, saved] of Object.entries(expected)) {
    const must = MUST_SHOW[name.slice(0, 2)];
    if (!must) fail(`no expectations for ${name}`);
    await openFile(page, name);
    await page.waitForSelector(`${CURRENT} .jp-Notebook .jp-Cell`, { timeout: 60_000 });
    await kernelReady(page);
    const kernelName = await page.textContent(`${CURRENT} [data-jp-item-name="kernelName"]`);
    if (!/wordlab/.test(kernelName ?? '')) fail(`${name} runs kernel "${kernelName}", not wordlab`);

    const first = await savedShown(page, saved);
    console.log(`${name} first open: ${JSON.stringify({ svg: first.svg, shaded: first.shaded, head: first.headTableRows })} saved: ${JSON.stringify(saved)}`);
    if (first.svg !== saved.svg) fail(`${name} on first open shows ${first.svg} of its ${saved.svg} saved SVG pictures`);
    if (first.shaded !== saved.shaded) fail(`${name} on first open shows ${first.shaded} of its ${saved.shaded} shaded outputs`);
    if (first.jsonTrees) fail(`${name} on first open shows ${first.jsonTrees} JSON trees`);
    await shot(page, `${name.slice(0, 2)}-first-open`);

    await page.click(`${CURRENT} .jp-Notebook .jp-Cell >> nth=0`);
    await menu(page, 'Edit', 'Clear Outputs of All Cells');
    await page.waitForFunction((current) => document.querySelectorAll(`${current} .jp-OutputArea-output`).length === 0,
      CURRENT, { timeout: 30_000 });
    await menu(page, 'Run', 'Run All Cells');
    await page.waitForFunction((current) => {
      const prompts = [...document.querySelectorAll(`${current} .jp-CodeCell .jp-InputPrompt`)].map((p) => p.textContent.replace(/\s/g, ''));
      return prompts.length > 0 && prompts.every((p) => /\[\d+\]/.test(p)) &&
        document.querySelector(`${current} .jp-Notebook-ExecutionIndicator[data-status="idle"]`) !== null;
    }, CURRENT, { timeout: RUN_TIMEOUT_MS, polling: 500 });
    const ran = await outputs(page);
    console.log(`${name} run all: ${JSON.stringify(ran)}`);
    const counts = ran.prompts.map((p) => Number(p.match(/\[(\d+)\]/)[1]));
    if (JSON.stringify(counts) !== JSON.stringify(counts.map((_, i) => i + 1))) fail(`${name}: execution counts ${counts}`);
    if (ran.errors.length) fail(`${name}: error output: ${ran.errors.join(' | ')}`);
    if (ran.scripts) fail(`${name}: ${ran.scripts} outputs hold a <script>`);
    if (ran.jsonTrees) fail(`${name}: ${ran.jsonTrees} outputs show a JSON tree`);
    if (ran.svg !== saved.svg || ran.svg < must.svg) fail(`${name}: ${ran.svg} SVG pictures after Run All (saved ${saved.svg}, at least ${must.svg})`);
    if (ran.heatMaps < must.heatMaps) fail(`${name}: ${ran.heatMaps} SVG heat maps after Run All, not at least ${must.heatMaps}`);
    if (ran.shaded < must.shaded) fail(`${name}: ${ran.shaded} shaded outputs after Run All`);
    if (must.headTable && ran.headTableRows < 5) fail(`${name}: no head table (a row per head) after Run All`);
    if (name.startsWith('03')) {   // the loss-shaded story readable, and the next-word table with its bars
      const r = await checkContrast(page, `${name} light theme`);
      if (!r.nextTables) fail(`${name}: no next-word table after Run All`);
    }
    if (name.startsWith('04')) {   // every heat map with its colour bar and axis titles
      const r = await readability(page);
      if (r.heatMaps < must.heatMaps || r.withBarAndAxes !== r.heatMaps) fail(`${name}: heat maps ${JSON.stringify(r)}`);
    }
    // The first heat map (or the head table, or the shading) in view.
    await page.evaluate((current) => {
      const nb = document.querySelector(`${current} .jp-Notebook`);
      const target = nb.querySelector('.jp-RenderedSVG img, .jp-OutputArea-output table th, .jp-OutputArea-output [style*="background"]');
      target?.closest('.jp-Cell').scrollIntoView({ block: 'start' });
    }, CURRENT);
    await shot(page, `${name.slice(0, 2)}-run-all`);

    // Saved where it was opened: the working copy (lab.sh checks that the saved copies differ from the bundled ones).
    await page.keyboard.press('Control+s');
    await page.waitForSelector(`.lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty) .lm-TabBar-tabLabel:text-is("${name}")`, { timeout: 30_000 });
    await menu(page, 'File', 'Close and Shut Down Notebook…');
    await acceptDialog(page);
    await page.waitForSelector(`.lm-TabBar-tab .lm-TabBar-tabLabel:text-is("${name}")`, { state: 'detached' });
  }

  // A scratch notebook on the wordlab kernel, from the launcher.
  await page.click(`.jp-LauncherCard[data-category="Notebook"][title="wordlab"]:visible`);
  await page.waitForSelector(`${CURRENT} .jp-Notebook .jp-Cell`, { timeout: 60_000 });
  await kernelReady(page);

  // Its kernel listens on the ipc transport, in a runtime directory that only this user may open.
  const kernels = await api('GET', '/api/kernels');
  if (kernels.length !== 1) fail(`expected one kernel, the server runs ${kernels.length}`);
  const { dir: runtimeDir, info: conn } = connectionFile(kernels[0].id);
  if (conn.transport !== 'ipc') fail(`the kernel's transport is ${conn.transport}, not ipc`);
  const mode = fs.statSync(runtimeDir).mode & 0o777;
  if (mode !== 0o700) fail(`the runtime directory ${runtimeDir} has mode ${mode.toString(8)}, not 700`);
  for (const port of ['shell_port', 'iopub_port', 'stdin_port', 'control_port', 'hb_port']) {
    const sock = `${conn.ip}-${conn[port]}`;
    if (path.dirname(sock) !== runtimeDir || !fs.statSync(sock).isSocket()) fail(`${port}: ${sock} is not a socket in ${runtimeDir}`);
  }
  console.log(`kernel: ipc sockets ${conn.ip}-N in ${runtimeDir} (mode 700)`);

  // Tab completion: a popup that offers train. The completer may connect to the new kernel a moment after it is
  // idle; a Tab before that does nothing, so it is pressed again (at most three times).
  await typeInLastCell(page, 't');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Tab');
    try {
      await page.waitForSelector('.jp-Completer:not(.lm-mod-hidden) .jp-Completer-item', { timeout: 10_000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      console.log(`completion: no popup after Tab number ${attempt}`);
    }
  }
  const items = await page.$$eval('.jp-Completer-item', (els) => els.map((e) => e.getAttribute('data-value')));
  console.log(`completion of "t": ${items.join(' ')}`);
  if (!items.includes('train')) fail(`the completion popup for "t" does not offer train: ${items}`);
  await shot(page, 'completion');
  await page.click('.jp-Completer-item[data-value="train"]');
  await page.waitForSelector('.jp-Completer', { state: 'hidden' });
  const completed = await page.locator(`${CURRENT} .jp-Notebook .jp-Cell:last-child .cm-content`).innerText();
  if (completed.trim() !== 'train') fail(`choosing train in the popup left "${completed}" in the cell`);

  // Shift+Tab: the tooltip with the command's usage.
  await page.keyboard.press('Shift+Tab');
  await page.waitForSelector('.jp-Tooltip', { timeout: 30_000 });
  const tooltip = await page.textContent('.jp-Tooltip');
  if (!/train/.test(tooltip) || !/steps/.test(tooltip)) fail(`the tooltip does not show train's usage: ${tooltip.slice(0, 200)}`);
  await shot(page, 'tooltip');
  await page.keyboard.press('Escape');
  await page.waitForSelector('.jp-Tooltip', { state: 'detached' });

  // ?train: the help page of train.
  await page.locator(`${CURRENT} .jp-Notebook .jp-Cell:last-child .cm-content`).click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('?train');
  const help = await runLastCell(page);
  if (!/steps/.test(help) || !/Ctrl-C/.test(help)) fail(`?train does not show train's help: ${help.slice(0, 200)}`);
  await shot(page, 'help');

  // The stop button during a long training run: it stops within 1 s and keeps the best weights.
  await typeInLastCell(page, 'stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=11');
  await runLastCell(page);
  // Small batches: a step is short, so the bound measures the stop, not how long one step takes on a loaded machine.
  await typeInLastCell(page, 'train $m $stories steps=100000 batch=16');
  const trainCell = page.locator(`${CURRENT} .jp-Notebook .jp-Cell`).nth(await page.locator(`${CURRENT} .jp-Notebook .jp-Cell`).count() - 1);
  await page.keyboard.press('Shift+Enter');
  // Training runs once the live progress has passed the first validation (step 1).
  await trainCell.locator('.jp-OutputArea-output').first().waitFor({ timeout: 60_000 });
  await page.waitForFunction((current) => document.querySelector(`${current} .jp-Notebook-ExecutionIndicator[data-status="busy"]`), CURRENT);
  // The bound runs from the click, as the page received it, to the kernel's idle status, as the server received it
  // (the kernel's last_activity once its state is idle); the page's own indicator follows, later by however long
  // the browser takes to draw on a loaded machine.
  await page.evaluate(() => document.addEventListener('click', () => { window.wlClickAt = Date.now(); }, { capture: true, once: true }));
  await page.click(`${CURRENT} .jp-Toolbar [title^="Interrupt the kernel"]`);
  const t0 = await page.evaluate(() => window.wlClickAt);
  let kernel;
  while ((kernel = await api('GET', `/api/kernels/${kernels[0].id}`)).execution_state !== 'idle') {
    if (Date.now() - t0 > 30_000) fail('the kernel is not idle 30 s after the stop button');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const stopMs = Date.parse(kernel.last_activity) - t0;
  await kernelIdle(page, 30_000);
  const shownMs = Date.now() - t0;
  const trained = await trainCell.locator('.jp-OutputArea').innerText();
  console.log(`stop: the kernel idle ${stopMs} ms after the click, the page showing it at ${shownMs} ms; ${trained.split('\n').slice(0, 2).join(' / ')}`);
  if (!/interrupted/.test(trained) || !/kept the weights of step \d+/.test(trained)) fail(`the interrupted training did not keep its best weights: ${trained.slice(0, 300)}`);
  if (stopMs > 1000) fail(`the stop button took ${stopMs} ms to end the training`);
  await trainCell.locator('.jp-OutputArea').evaluate((e) => e.scrollIntoView({ block: 'end' }));
  await shot(page, 'stop');
  await typeInLastCell(page, 'print $m.selected_step');
  const kept = await runLastCell(page);
  if (!/^\s*\d+/.test(kept)) fail(`the model does not answer after the stop: ${kept}`);

  // Restart: a fresh kernel (the model is gone) that runs commands.
  // The indicator is idle before the restart too: record every state it shows from the click on, and wait
  // for a state other than idle (restarting, starting) before waiting for idle again.
  await page.evaluate((current) => {
    const panel = document.querySelector(current);
    const seen = window.wlRestartStates = [];
    new MutationObserver(() => seen.push(panel.querySelector('.jp-Notebook-ExecutionIndicator')?.getAttribute('data-status')))
      .observe(panel, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  }, CURRENT);
  await menu(page, 'Kernel', 'Restart Kernel…');
  await acceptDialog(page);
  await page.waitForFunction(() => window.wlRestartStates.some((s) => s && s !== 'idle'), null, { timeout: 60_000 });
  await kernelIdle(page);
  await typeInLastCell(page, 'print "after restart"');
  const restarted = await runLastCell(page);
  if (!/after restart/.test(restarted)) fail(`the restarted kernel does not run commands: ${restarted}`);
  const prompt = await page.locator(`${CURRENT} .jp-Notebook .jp-CodeCell .jp-InputPrompt`).nth(-2).textContent();
  if (!/\[1\]/.test(prompt)) fail(`after a restart the execution count is ${prompt}, not [1]`);
  await shot(page, 'restart');

  // LaTeX in Markdown: the MathJax 3 that JupyterLab bundles typesets it (no request leaves the server).
  await page.locator(`${CURRENT} .jp-Notebook .jp-Cell:last-child .cm-content`).click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('m');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Perplexity is $e^{H}$ with $H = -\\frac{1}{N} \\sum_i \\ln p_i$.');
  await page.keyboard.press('Shift+Enter');
  await page.waitForSelector(`${CURRENT} .jp-MarkdownCell .jp-RenderedMarkdown mjx-container`, { timeout: 60_000 });
  const math = await page.locator(`${CURRENT} .jp-MarkdownCell .jp-RenderedMarkdown`).last().innerText();
  if (/Math Processing Error|\$/.test(math)) fail(`MathJax left the Markdown cell as "${math}"`);
  await shot(page, 'mathjax');
  await menu(page, 'File', 'Close and Shut Down Notebook…');
  await acceptDialog(page);

  // A .wlab file opens in the editor, its icon in the file browser, its tokens highlighted.
  const fileIcon = await page.getAttribute('.jp-DirListing-item[title^="Name: scratch.wlab\\A "] .jp-DirListing-itemIcon svg', 'data-icon');
  if (fileIcon !== 'wordlab:logo') fail(`scratch.wlab has the icon ${fileIcon} in the file browser, not wordlab's`);
  await openFile(page, 'scratch.wlab');
  await page.waitForSelector(`${CURRENT} .jp-FileEditor .cm-content .cm-line`, { timeout: 30_000 });
  // The language is applied once the editor has parsed the file: wait for a coloured command.
  await page.waitForFunction((current) => [...document.querySelectorAll(`${current} .jp-FileEditor .cm-line span`)]
    .some((e) => e.textContent === 'corpus'), CURRENT, { timeout: 30_000 });
  const words = await highlighted(page, `${CURRENT} .jp-FileEditor`);
  console.log(`scratch.wlab: ${JSON.stringify(words)}`);
  const roleOf = (text) => words.find(([w]) => w === text)?.[1];
  const want = { corpus: 'keyword', train: 'keyword', stories: 'def', profile: 'attribute', '$stories.vocab': 'variable-2',
                 '"done"': 'string', 20: 'number', '# a wordlab script': 'comment', '=': 'operator', trian: 'plain' };
  for (const [text, role] of Object.entries(want)) {
    if (roleOf(String(text)) !== role) fail(`"${text}" in scratch.wlab is coloured as ${roleOf(String(text))}, not ${role}`);
  }
  await shot(page, 'wlab-editor');

  // A console on the wordlab kernel runs a command; its input is highlighted as wordlab.
  await page.click('.lm-TabBar-tab .lm-TabBar-tabLabel:text-is("Launcher")').catch(async () => {
    await menu(page, 'File', 'New Launcher');
  });
  await page.click(`.jp-LauncherCard[data-category="Console"][title="wordlab"]:visible`);
  const input = page.locator(`${CURRENT} .jp-CodeConsole-input .cm-content`);
  await input.waitFor({ timeout: 60_000 });
  await page.waitForSelector(`${CURRENT} .jp-CodeConsole-banner`, { timeout: 60_000 });
  await input.click();
  await page.keyboard.type('print "hello from the console" 42');
  // The input switches to the kernel's language (text/x-wordlab) once the kernel has told it.
  await page.waitForFunction((current) => [...document.querySelectorAll(`${current} .jp-CodeConsole-input .cm-line span`)]
    .some((e) => e.textContent === 'print'), CURRENT, { timeout: 30_000 })
    .catch(() => fail('the console input is not highlighted as wordlab'));
  const consoleWords = await highlighted(page, `${CURRENT} .jp-CodeConsole-input`);
  if (!consoleWords.some(([w, r]) => w === 'print' && r === 'keyword')) fail(`the console input's print is not a command: ${JSON.stringify(consoleWords)}`);
  await page.keyboard.press('Shift+Enter');
  await page.waitForSelector(`${CURRENT} .jp-CodeConsole .jp-Console-cell .jp-OutputArea-output:has-text("hello from the console 42")`, { timeout: 60_000 });
  await shot(page, 'console');

  // Lesson 01 in Notebook 7 on the same server: its saved pictures on first open, then Run All.
  const nb7 = await context.newPage();
  // Notebook 7.6.5's own shortcuts plugin throws this when the settings of a plugin that Notebook does not load
  // change (the same with no wordlab extension and no wordlab kernel installed): it is not counted, nothing else is.
  const NB7_OWN = "Cannot read properties of undefined (reading 'schema')";
  nb7.on('pageerror', (e) => { if (e.message !== NB7_OWN) problems.push(`Notebook 7 page error: ${e.message}`); });
  // Notebook 7.6.5's server answers 403 for font files that its own CSS names under /static/notebook/ (they lie in
  // its static folder; the page draws with fallback fonts): those are not counted either.
  const nb7OwnFont = (m) => /^Failed to load resource/.test(m.text()) && /\/static\/notebook\/[0-9a-f]+\.woff2?$/.test(m.location().url);
  nb7.on('console', (m) => { if (m.type() === 'error' && !nb7OwnFont(m)) problems.push(`Notebook 7 console error: ${m.text()} (${m.location().url})`); });
  const [lesson01, saved01] = Object.entries(expected)[0];
  await nb7.goto(`${base}/notebooks/${lesson01}?token=${token}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await nb7.waitForSelector('.jp-NotebookPanel .jp-Notebook .jp-Cell', { timeout: 60_000 });
  await nb7.waitForFunction(() => /wordlab/.test(document.querySelector('[data-jp-item-name="kernelName"]')?.textContent ?? ''), null, { timeout: 120_000 });
  const nb7First = await savedShown(nb7, saved01, '.jp-NotebookPanel');
  if (nb7First.svg !== saved01.svg || nb7First.jsonTrees) fail(`Notebook 7 shows ${nb7First.svg} of ${saved01.svg} saved pictures and ${nb7First.jsonTrees} JSON trees on first open`);
  await nb7.click('.jp-NotebookPanel .jp-Notebook .jp-Cell >> nth=0');
  await menu(nb7, 'Edit', 'Clear Outputs of All Cells');
  await nb7.waitForFunction(() => document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output').length === 0, null, { timeout: 30_000 });
  await menu(nb7, 'Run', 'Run All Cells');
  await nb7.waitForFunction(() => {
    const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')].map((p) => p.textContent.replace(/\s/g, ''));
    return prompts.length > 0 && prompts.every((p) => /\[\d+\]/.test(p));
  }, null, { timeout: RUN_TIMEOUT_MS, polling: 500 });
  const nb7Ran = await outputs(nb7, '.jp-NotebookPanel');
  console.log(`Notebook 7, ${lesson01} run all: ${JSON.stringify(nb7Ran)}`);
  if (nb7Ran.errors.length || nb7Ran.svg !== saved01.svg || nb7Ran.jsonTrees || nb7Ran.headTableRows < 5) fail(`Notebook 7 after Run All: ${JSON.stringify(nb7Ran)}`);
  await nb7.evaluate(() => document.querySelector('.jp-NotebookPanel .jp-RenderedSVG img, .jp-NotebookPanel .jp-RenderedHTMLCommon svg')?.closest('.jp-Cell').scrollIntoView({ block: 'start' }));
  await shot(nb7, 'notebook7');
  await nb7.close();
  for (const session of await api('GET', '/api/sessions')) await api('DELETE', `/api/sessions/${session.id}`);

  // The dark theme, and lesson 04's saved pictures in it.
  await page.bringToFront();
  await menu(page, 'Settings', 'Theme');
  await page.click('.lm-Menu:not(.lm-mod-hidden) .lm-Menu-itemLabel:text-is("JupyterLab Dark")');
  await page.waitForSelector('body[data-jp-theme-light="false"]', { state: 'attached', timeout: 30_000 });
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached', timeout: 30_000 });
  await shot(page, 'dark-theme');
  const lesson04 = Object.keys(expected)[3];
  await openFile(page, lesson04);
  await page.waitForSelector(`${CURRENT} .jp-Notebook .jp-Cell`, { timeout: 60_000 });
  await kernelReady(page);
  await page.evaluate((current) => document.querySelector(`${current} .jp-Notebook .jp-RenderedSVG img, ${current} .jp-Notebook .jp-RenderedHTMLCommon svg`)
    ?.closest('.jp-Cell').scrollIntoView({ block: 'start' }), CURRENT);
  await shot(page, 'dark-04');
  const lesson03 = Object.keys(expected)[2];
  await openFile(page, lesson03);
  await page.waitForSelector(`${CURRENT} .jp-Notebook .jp-Cell`, { timeout: 60_000 });
  await kernelReady(page);
  await checkContrast(page, `${lesson03} dark theme`);
  await page.evaluate((current) => document.querySelector(`${current} .wordlab-losses`)?.closest('.jp-Cell').scrollIntoView({ block: 'start' }), CURRENT);
  await shot(page, 'dark-03');

  console.log(`screenshots: ${shot.list.join(' ')}`);
  if (problems.length) fail(`the page reported: ${problems.join(' | ')}`);
  console.log('lab.mjs: all checks passed');
} catch (e) {
  await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => {});
  console.error(`screenshot of the failure: ${path.join(shots, 'failure.png')}; the page reported: ${problems.join(' | ') || 'nothing'}`);
  throw e;
} finally {
  await context.close();
}
