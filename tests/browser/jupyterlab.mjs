// jupyterlab.mjs: what the browser tests of JupyterLab 4 and Notebook 7 share: waiting for the kernel, menus,
// dialogs, what a notebook's outputs show, how the editor colours words, screenshots, the server's REST API.
import path from 'node:path';

export function fail(msg) {
  throw new Error(msg);
}
// A screenshot taker into dir: shot(page, name) writes NN-name.png (numbered in order); shot.list names them.
export function shooter(dir) {
  const shot = async (page, name) => {
    const file = path.join(dir, `${String(shot.list.length + 1).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file });
    shot.list.push(path.basename(file));
  };
  shot.list = [];
  return shot;
}

// The current (visible) document or console area of the main dock panel.
export const CURRENT = '.lm-DockPanel-widget:not(.lm-mod-hidden)';

// The server's REST API: api(method, route, body) returns the reply's JSON (null for 204).
export const serverApi = (base, token) => async function api(method, route, body) {
  const r = await fetch(`${base}${route}`, {
    method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) fail(`${method} ${route}: HTTP ${r.status}`);
  return r.status === 204 ? null : r.json();
};

export async function menu(page, top, item) {
  await page.click(`.lm-MenuBar-itemLabel:text-is("${top}")`);
  await page.click(`.lm-Menu:not(.lm-mod-hidden) .lm-Menu-itemLabel:text-is("${item}")`);
}

// Waits until the current notebook's kernel (wordlab) is idle.
export async function kernelIdle(page, timeout = 120_000) {
  await page.waitForSelector(`${CURRENT} .jp-Notebook-ExecutionIndicator[data-status="idle"]`, { timeout });
}

// Waits until the current notebook names its kernel (once the session has started it) and the kernel is idle.
export async function kernelReady(page) {
  await page.waitForFunction((current) => !/No Kernel|^\s*$/.test(document.querySelector(`${current} [data-jp-item-name="kernelName"]`)?.textContent ?? ''),
    CURRENT, { timeout: 120_000 });
  await kernelIdle(page);
}

// Accepts the open dialog (e.g. "Restart", "Shut Down").
export async function acceptDialog(page) {
  await page.click('.jp-Dialog .jp-mod-accept');
  await page.waitForSelector('.jp-Dialog', { state: 'detached' });
}

// What the current notebook's outputs show: pictures (SVG images, SVG in HTML, charts), heat maps, shaded outputs, ...
export async function outputs(page, scope = CURRENT) {
  return page.evaluate((current) => {
    const nb = document.querySelector(`${current} .jp-Notebook`);
    const outs = [...nb.querySelectorAll('.jp-OutputArea-output')];
    const cells = [...nb.querySelectorAll('.jp-CodeCell')];
    const svgImgs = outs.flatMap((o) => [...o.querySelectorAll('.jp-RenderedSVG img')]);
    const inlineSvgs = outs.flatMap((o) => [...o.querySelectorAll('.jp-RenderedHTMLCommon svg')]).filter((s) => !s.closest('.vega-embed'));
    // A chart (Vega-Lite and SVG in one bundle): JupyterLab prefers its Vega-Lite, drawn by the bundled vega.
    const charts = outs.filter((o) => o.querySelector('.vega-embed canvas, .vega-embed svg')).length;
    const rects = (img) => (decodeURIComponent(img.src.split(',')[1] || '').match(/<rect/g) || []).length;
    const tables = outs.flatMap((o) => [...o.querySelectorAll('table')]);
    const headTable = tables.find((t) => [...t.querySelectorAll('th')].some((th) => th.textContent.trim() === 'Head'));
    return {
      cells: cells.length,
      prompts: cells.map((c) => c.querySelector('.jp-InputPrompt').textContent.replace(/\s/g, '')),
      withOutput: cells.filter((c) => c.querySelector('.jp-OutputArea-output')).length,
      svg: svgImgs.length + inlineSvgs.length + charts,
      heatMaps: svgImgs.filter((i) => rects(i) >= 30).length + inlineSvgs.filter((s) => s.querySelectorAll('rect').length >= 30).length,
      shaded: outs.filter((o) => o.querySelector('.jp-RenderedHTMLCommon [style*="background"]')).length,
      headTableRows: headTable ? headTable.querySelectorAll('tr').length : 0,
      errors: outs.filter((o) => o.matches('[data-mime-type="application/vnd.jupyter.stderr"]') || o.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]'))
        .map((o) => o.textContent).slice(0, 3),
      scripts: outs.filter((o) => o.querySelector('script')).length,
      jsonTrees: outs.filter((o) => o.querySelector('.jp-RenderedJSON')).length,
    };
  }, scope);
}

// The outputs of a notebook just opened, once it shows its saved.svg pictures and saved.shaded shaded outputs (a large
// notebook's outputs are drawn a moment after it shows, charts later still), or as they are after 30 s.
export async function savedShown(page, saved, scope = CURRENT) {
  const done = (shown) => shown.svg === saved.svg && shown.shaded === saved.shaded;
  let shown = await outputs(page, scope);
  for (const until = Date.now() + 30_000; !done(shown) && Date.now() < until; shown = await outputs(page, scope)) {
    await page.waitForTimeout(250);
  }
  return shown;
}

export async function openFile(page, name) {
  await page.dblclick(`.jp-DirListing-item[title^="Name: ${name}\\A "]`);
}

// Types into the editor of the last cell of the current notebook (after clicking into it).
export async function typeInLastCell(page, text) {
  const editor = page.locator(`${CURRENT} .jp-Notebook .jp-Cell:last-child .cm-content`);
  await editor.click();
  await page.keyboard.type(text);
}

// Runs the last cell of the current notebook (Shift+Enter adds a new cell below) and returns its output text.
export async function runLastCell(page) {
  const n = await page.locator(`${CURRENT} .jp-Notebook .jp-Cell`).count();
  await page.keyboard.press('Shift+Enter');
  await page.waitForFunction(([current, i]) => {
    const cell = document.querySelectorAll(`${current} .jp-Notebook .jp-Cell`)[i];
    return cell && /\[\d+\]/.test(cell.querySelector('.jp-InputPrompt').textContent);
  }, [CURRENT, n - 1], { timeout: 120_000 });
  await kernelIdle(page);
  return page.locator(`${CURRENT} .jp-Notebook .jp-Cell`).nth(n - 1).locator('.jp-OutputArea').innerText();
}

// What each word of the CodeMirror 6 editors under selector is coloured as: the editor theme's colour variable
// (--jp-mirror-editor-NAME-color) whose value its computed colour is, or "plain".
export async function highlighted(page, selector) {
  return page.evaluate((sel) => {
    const roles = ['keyword', 'def', 'variable-2', 'attribute', 'string', 'number', 'comment', 'operator'];
    const root = document.querySelector(sel);
    const probe = document.createElement('span');
    document.body.appendChild(probe);
    const colours = Object.fromEntries(roles.map((r) => {
      probe.style.color = `var(--jp-mirror-editor-${r}-color)`;
      return [getComputedStyle(probe).color, r];
    }));
    probe.remove();
    const words = [];
    for (const line of root.querySelectorAll('.cm-line')) {
      for (const node of line.childNodes) {
        const text = node.textContent.trim();
        if (!text) continue;
        const role = node.nodeType === 1 ? colours[getComputedStyle(node).color] ?? 'plain' : 'plain';
        for (const word of node.nodeType === 1 ? [text] : text.split(/\s+/)) words.push([word, role]);
      }
    }
    return words;
  }, selector);
}
