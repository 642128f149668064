// lite.mjs: in Debian's chromium, opens the wordlab Lite site (JupyterLite, the kernel in the browser), runs the
// lessons of NATIVE.json with Run All and compares each code cell's text/plain outputs with the native kernel's
// (lite_native.py): wall-clock figures masked; numbers equal, or within LOOSE (reported apart) where the browser
// computes in another order than the native kernel's OpenBLAS. With lesson 04 also: the wordlab extension at work
// (highlighted cells, the .wlab file type); completion, inspection, is_complete and `?name` replies equal the native
// kernel's; a short training run's live display (its updates counted, its summary compared); a training run stopped
// by interrupt. Always: which of the two builds the worker runs (the relaxed-SIMD one, or the other where
// WL_LITE_PORTABLE names the lesson); no request leaving the site; a screenshot per lesson.
// usage: node lite.mjs URL NATIVE.json SHOT_DIR USER_DATA_DIR [RESULT.json]
//   RESULT.json: each lesson's Run All time in the browser (seconds), for the benchmark
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';

const [url, nativeFile, shotDir, userDataDir, resultFile] = process.argv.slice(2);
if (!url || !nativeFile || !shotDir || !userDataDir) {
  console.error('usage: node lite.mjs URL NATIVE.json SHOT_DIR USER_DATA_DIR [RESULT.json]');
  process.exit(2);
}
const { lessons: native, requests: nativeReplies, requests_sent: requestsSent, training, training_code: trainingCode } =
  JSON.parse(fs.readFileSync(nativeFile, 'utf8'));
const nativeTraining = { code: trainingCode, outputs: training.outputs, updates: training.updates };
// The longest wait for a state (the page loaded, the kernel idle, Run All done): generous, as a loaded machine needs.
const RUN_TIMEOUT_MS = 1_800_000;
// Wall-clock figures, as tests/py/test_kernel_xeus_diff.py masks them: "0.1 s", "619/s", "1 s left".
const TIMING = [/\d[\d,.]*\s*(?:ms|µs|s)\b/g, /\d[\d,.]*\/s\b/g, /\d[\d,.]* s left/g];
const NUMBER = /-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/g;
const LOOSE = 0.02;   // relative, for a number the browser computed in another order than the native kernel

// One output of the notebook model as lite_native.py keeps it: {type, name, text}, text/plain only.
function normalized(o) {
  const text = (t) => (Array.isArray(t) ? t.join('') : String(t ?? ''));
  if (o.output_type === 'stream') return { type: 'stream', name: o.name, text: text(o.text) };
  if (o.output_type === 'error') return { type: 'error', text: [o.ename, o.evalue, ...o.traceback].join('\n') };
  return { type: o.output_type, text: text(o.data['text/plain']) };
}

// A cell's outputs in the notebook model's form from its IOPub messages, as a front end keeps them (lite_native.py's
// outputs(): streams of one name joined, a display's updates applied in place).
function outputsOf(msgs) {
  let out = [];
  const byId = {};
  for (const { msg_type: t, content: c } of msgs) {
    if (t === 'stream') {
      const last = out[out.length - 1];
      if (last?.output_type === 'stream' && last.name === c.name) last.text += c.text;
      else out.push({ output_type: 'stream', name: c.name, text: c.text });
    } else if (t === 'display_data' || t === 'execute_result') {
      const o = { output_type: t, data: { ...c.data } };
      out.push(o);
      if (c.transient?.display_id) (byId[c.transient.display_id] ??= []).push(o);
    } else if (t === 'update_display_data') {
      for (const o of byId[c.transient.display_id] ?? []) o.data = { ...c.data };
    } else if (t === 'error') {
      out.push({ output_type: 'error', ename: c.ename, evalue: c.evalue, traceback: c.traceback });
    } else if (t === 'clear_output') {
      out = [];
    }
  }
  return out;
}

const mask = (s) => TIMING.reduce((t, re) => t.replace(re, '<time>'), s);

// Compares two masked texts: equal words, and numbers equal (exact: 0) or within LOOSE (1); 2: they differ.
// diffs gets the pairs of numbers that are not equal.
function compareText(a, b, diffs = []) {
  const wa = a.split(NUMBER), wb = b.split(NUMBER);
  const na = a.match(NUMBER) || [], nb = b.match(NUMBER) || [];
  if (wa.length !== wb.length || wa.some((w, i) => w !== wb[i])) return 2;
  let worst = 0;
  na.forEach((x, i) => {
    if (x === nb[i]) return;
    diffs.push(`${x}/${nb[i]}`);
    const p = Number(x), q = Number(nb[i]);
    worst = Math.max(worst, Math.abs(p - q) <= LOOSE * Math.max(Math.abs(p), Math.abs(q), 1e-3) ? 1 : 2);
  });
  return worst;
}

const origin = new URL(url).origin;
const outside = [];
const pageErrors = [];

const results = {};
const extra = [];   // [label, browser outputs, native outputs] of the cells run beside the lessons
let failures = 0, loose = 0, exact = 0;

// One cell's outputs, browser against native: the same kinds in the same order, each text compared (compareText).
function compareOutputs(label, got, want) {
  const a = JSON.stringify(got.map((o) => [o.type, o.name])), b = JSON.stringify(want.map((o) => [o.type, o.name]));
  if (a !== b) {
    console.error(`${label}: outputs ${a} in the browser, ${b} natively\n  browser: ${JSON.stringify(got).slice(0, 600)}\n  native:  ${JSON.stringify(want).slice(0, 600)}`);
    failures++;
    return;
  }
  got.forEach((o, k) => {
    const diffs = [];
    const verdict = compareText(mask(o.text), mask(want[k].text), diffs);
    if (verdict === 2) {
      console.error(`${label} output ${k + 1} differs:\n--- browser\n${o.text}\n--- native\n${want[k].text}`);
      failures++;
    } else if (verdict === 1) {
      console.log(`${label} output ${k + 1}: numbers within ${LOOSE * 100}% (browser/native: ${diffs.slice(0, 6).join(' ')}${diffs.length > 6 ? ' ...' : ''})`);
      loose++;
    } else {
      exact++;
    }
  });
}
for (const [name, ref] of Object.entries(native)) {
  // A browser of its own for each lesson: JupyterLite would restore the notebooks of an earlier page beside it.
  const browser = await launchChromium(`${userDataDir}-${Object.keys(results).length}`, { width: 1280, height: 1000 });
  browser.on('request', (r) => {   // the page's, its workers' and the service worker's requests
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) outside.push(u);
  });
  // The worker loads the relaxed-SIMD build where the engine fuses its multiply-add (chromium does); the lessons of
  // WL_LITE_PORTABLE open with ?wordlab-build=portable, the build of engines without it.
  const portable = (process.env.WL_LITE_PORTABLE ?? '').split(',').includes(name);
  const page = browser.pages()[0] || await browser.newPage();
  let build = null;
  page.on('console', (m) => { const b = /^wordlab: (\S+)$/.exec(m.text()); if (b) build = b[1]; });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('crash', () => console.error(`${name}: the page crashed`));
  await page.goto(`${url}lab/index.html?path=${encodeURIComponent(name)}${portable ? '&wordlab-build=portable' : ''}`,
                  { timeout: RUN_TIMEOUT_MS });
  // The notebook is open (window.lesson finds its panel) and its wordlab kernel has answered kernel_info.
  await page.waitForFunction((nb) => {
    window.lesson = () => [...(window.jupyterapp?.shell?.widgets('main') ?? [])].find((w) => w.context?.path === nb);
    const w = window.lesson();
    return w?.sessionContext?.session?.kernel?.name === 'wordlab' && w.sessionContext.session.kernel.status === 'idle';
  }, name, { timeout: RUN_TIMEOUT_MS });
  const crossOriginIsolated = await page.evaluate(() => self.crossOriginIsolated);
  const want = portable ? 'wordlab-lite' : 'wordlab-lite-relaxed';
  console.log(`${name}: the worker runs ${build}`);
  if (build !== want) {
    console.error(`${name}: the worker runs ${build}, not ${want}`);
    failures++;
  }
  const t0 = Date.now();
  // The saved outputs and execution counts go first, so that every output compared comes from this run.
  const ran = await page.evaluate(async () => {
    const app = window.jupyterapp;
    app.shell.activateById(window.lesson().id);
    await app.commands.execute('notebook:clear-all-cell-outputs');
    const cells = window.lesson().content.model.cells;
    for (let i = 0; i < cells.length; i++) if (cells.get(i).type === 'code') cells.get(i).executionCount = null;
    await app.commands.execute('notebook:run-all-cells');
  }).then(() => null, (e) => String(e));
  if (ran) throw new Error(`${name}: Run All failed: ${ran}`);
  // Every code cell has run (its execution count is set) and the kernel is idle again.
  await page.waitForFunction(() => {
    const w = window.lesson();
    const cells = w.content.model.cells;
    for (let i = 0; i < cells.length; i++) {
      const c = cells.get(i);
      if (c.type === 'code' && c.sharedModel.getSource().trim() && c.executionCount == null) return false;
    }
    return w.sessionContext.session.kernel.status === 'idle';
  }, null, { timeout: RUN_TIMEOUT_MS, polling: 200 });
  const seconds = (Date.now() - t0) / 1000;
  const cells = await page.evaluate(() => {
    const model = window.lesson().content.model;
    const out = [];
    for (let i = 0; i < model.cells.length; i++) {
      const c = model.cells.get(i);
      if (c.type !== 'code') continue;
      out.push(JSON.parse(JSON.stringify(c.outputs.toJSON())));
    }
    return out;
  }).then((all) => all.map((outs) => outs.map(normalized)));
  // Each code cell's time in the browser (the execute_input and reply times that recordTiming keeps).
  const cellSeconds = await page.evaluate(() => {
    const model = window.lesson().content.model, out = [];
    for (let i = 0; i < model.cells.length; i++) {
      const c = model.cells.get(i);
      const t = c.type === 'code' ? c.getMetadata('execution') : null;
      if (c.type === 'code') out.push(t ? (Date.parse(t['shell.execute_reply']) - Date.parse(t['iopub.execute_input'])) / 1000 : NaN);
    }
    return out;
  });
  const slowest = cellSeconds.map((s, i) => [s, i]).sort((a, b) => b[0] - a[0]).slice(0, 3)
    .map(([s, i]) => `cell ${i + 1} ${s.toFixed(1)} s (native ${(ref.cell_seconds?.[i] ?? NaN).toFixed(2)} s)`);
  console.log(`${name}: slowest in the browser: ${slowest.join(', ')}`);
  if (name.startsWith('04_')) {
    // Completion, inspection, is_complete and `?name`'s pager payload: the native kernel's replies, to the byte.
    const replies = await page.evaluate(async (reqs) => {
      const kernel = window.lesson().sessionContext.session.kernel;
      const out = {};
      for (const [label, type, content] of reqs) {
        if (type === 'complete_request') out[label] = (await kernel.requestComplete(content)).content;
        else if (type === 'inspect_request') out[label] = (await kernel.requestInspect(content)).content;
        else if (type === 'is_complete_request') out[label] = (await kernel.requestIsComplete(content)).content;
        else out[label] = (await kernel.requestExecute(content).done).content.payload;
      }
      return out;
    }, requestsSent);
    for (const [label, want] of Object.entries(nativeReplies)) {
      if (JSON.stringify(replies[label]) !== JSON.stringify(want)) {
        console.error(`${label}: the browser kernel replied\n  ${JSON.stringify(replies[label]).slice(0, 800)}\nnatively\n  ${JSON.stringify(want).slice(0, 800)}`);
        failures++;
      } else {
        console.log(`${label}: the same reply as the native kernel`);
      }
    }
  }
  if (name.startsWith('04_')) {
    // The wordlab extension of the site: the lesson's code cells highlighted as wordlab (their words in coloured
    // spans), the .wlab file type known.
    const shown = await page.evaluate(() => {
      const cell = window.lesson().node.querySelector('.jp-CodeCell .cm-content');
      return { spans: cell ? cell.querySelectorAll('.cm-line span').length : 0,
               wlab: Boolean(window.jupyterapp.docRegistry.getFileType('wordlab')) };
    });
    console.log(`${name}: the first code cell has ${shown.spans} highlighted words; .wlab known: ${shown.wlab}`);
    if (!shown.spans || !shown.wlab) {
      console.error(`${name}: the wordlab extension is not at work in the site (highlighted words ${shown.spans}, .wlab ${shown.wlab})`);
      failures++;
    }
    // A short training run: its live display (a display_data, then updates) ends as the native kernel's summary.
    const trained = await page.evaluate(async (code) => {
      const kernel = window.lesson().sessionContext.session.kernel;
      const msgs = [];
      const future = kernel.requestExecute({ code });
      future.onIOPub = (m) => msgs.push({ msg_type: m.header.msg_type, content: m.content });
      const reply = await future.done;
      return { status: reply.content.status, msgs };
    }, nativeTraining.code);
    const got = outputsOf(trained.msgs).map(normalized);
    const updates = trained.msgs.filter((m) => m.msg_type === 'update_display_data').length;
    console.log(`${name}: a training run: ${trained.status}, ${updates} display updates in the browser, ` +
                `${nativeTraining.updates} natively`);
    if (trained.status !== 'ok' || !trained.msgs.some((m) => m.msg_type === 'display_data') || !updates) {
      console.error(`${name}: the training run replied ${trained.status} with ${updates} display updates`);
      failures++;
    }
    extra.push([`${name} training`, got, nativeTraining.outputs]);
    // Interrupt inside a running cell (the page is cross-origin isolated): a long training run stops with the
    // runtime's Interrupted error once its live display has shown a step.
    const stop = await page.evaluate(async () => {
      const kernel = window.lesson().sessionContext.session.kernel;
      let shown = false;
      const future = kernel.requestExecute({ code: 'long = train $net $tiny steps=100000 batch=64' });
      future.onIOPub = (m) => { if (m.header.msg_type.endsWith('display_data')) shown = true; };
      while (!shown) await new Promise((r) => setTimeout(r, 50));
      await kernel.interrupt();
      const reply = await future.done;
      return [reply.content.status, reply.content.ename];
    });
    console.log(`${name}: a training run interrupted: ${stop.join(' ')}`);
    if (stop[0] !== 'error' || stop[1] !== 'Interrupted') {
      console.error(`${name}: the interrupted cell replied ${stop.join(' ')}, not error Interrupted`);
      failures++;
    }
  }
  fs.mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: path.join(shotDir, `${name.replace(/\.ipynb$/, '')}.png`) });
  await browser.close();

  if (cells.length !== ref.cells.length) {
    console.error(`${name}: ${cells.length} code cells in the browser, ${ref.cells.length} natively`);
    failures++;
  }
  cells.forEach((got, i) => compareOutputs(`${name} cell ${i + 1}`, got, ref.cells[i] || []));
  results[name] = { seconds, native_seconds: ref.seconds, cells: cells.length, crossOriginIsolated };
  console.log(`${name}: ${cells.length} code cells, Run All ${seconds.toFixed(1)} s in the browser ` +
              `(native ${ref.seconds.toFixed(1)} s), cross-origin isolated: ${crossOriginIsolated}`);
}
for (const [label, got, want] of extra) compareOutputs(label, got, want);
if (outside.length) {
  console.error(`requests left the site:\n  ${[...new Set(outside)].join('\n  ')}`);
  failures++;
}
if (pageErrors.length) console.log(`page errors (not failures): ${pageErrors.join('; ')}`);
if (resultFile) fs.writeFileSync(resultFile, JSON.stringify(results, null, 1));
console.log(`lite: ${exact} outputs equal, ${loose} within ${LOOSE * 100}%, ${failures} failures`);
process.exit(failures ? 1 : 0);
