// bench_lite.mjs: the wordlab Lite benchmark in Debian's chromium: the site's first-load size (until the kernel is
// idle on a lesson, before any checkpoint is read) and after the three bundled checkpoints are loaded; a training step
// and a generated token in the browser kernel (bench_lite.wlab), printed with the native figures passed in.
// usage: node bench_lite.mjs URL USER_DATA_DIR NATIVE.json LESSONS.json
//   NATIVE.json: {"1": [step_ms, token_ms], "2": [...]} (OPENBLAS_NUM_THREADS); LESSONS.json: lite.mjs's result
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../browser/chromium.mjs';

const [url, userDataDir, nativeFile, lessonsFile] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const code = fs.readFileSync(path.join(here, 'bench_lite.wlab'), 'utf8');
const native = JSON.parse(fs.readFileSync(nativeFile, 'utf8'));
const lessons = JSON.parse(fs.readFileSync(lessonsFile, 'utf8'));
const ROUNDS = 3;

const browser = await launchChromium(userDataDir);
const sizes = new Map();   // url -> bytes of its response body as transferred
browser.on('requestfinished', async (r) => {
  const s = await r.sizes().catch(() => null);
  if (s) sizes.set(r.url(), Math.max(sizes.get(r.url()) ?? 0, s.responseBodySize));
});
const total = () => [...sizes.values()].reduce((a, b) => a + b, 0);
const page = browser.pages()[0] || await browser.newPage();
const lesson = '04_multihead_step_by_step.ipynb';
await page.goto(`${url}lab/index.html?path=${lesson}`);
await page.waitForFunction((nb) => {
  const w = [...(window.jupyterapp?.shell?.widgets('main') ?? [])].find((x) => x.context?.path === nb);
  window.benchKernel = w?.sessionContext?.session?.kernel;
  return window.benchKernel?.name === 'wordlab' && window.benchKernel.status === 'idle';
}, lesson, { timeout: 600_000 });
await page.waitForLoadState('networkidle');
const firstLoad = total();
if ([...sizes.keys()].some((u) => u.endsWith('.npz'))) throw new Error('a checkpoint was fetched before any cell ran');

// Runs wordlab code in the page's kernel; returns its stdout.
const run = (src) => page.evaluate(async (c) => {
  let out = '';
  const future = window.benchKernel.requestExecute({ code: c });
  future.onIOPub = (m) => { if (m.header.msg_type === 'stream') out += m.content.text; };
  const reply = await future.done;
  if (reply.content.status !== 'ok') throw new Error(`${reply.content.ename}: ${reply.content.evalue}`);
  return out;
}, src);
await run('a = model load [artifact mlp_seed11.npz]\nb = model load [artifact attention_seed11.npz]\n' +
          'c = model load [artifact multihead_seed11.npz]');
await page.waitForLoadState('networkidle');
const withCheckpoints = total();

// Fastest of ROUNDS: the 4-step and the 16-step run (a step: their difference over 12), the ms per token.
let [fa, fb, ftok] = [Infinity, Infinity, Infinity];
for (let i = 0; i < ROUNDS; i++) {
  const line = (await run(code)).split('\n').find((l) => l.startsWith('bench'));
  const [a, b, g, n] = line.split(/\s+/).slice(1).map(Number);
  [fa, fb, ftok] = [Math.min(fa, a), Math.min(fb, b), Math.min(ftok, g / n * 1000)];
}
const best = [(fb - fa) / 12 * 1000, ftok];
await browser.close();

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const ratio = (x, y) => `${(x / y).toFixed(2)}×`;
console.log('| lesson | Run All in the browser | native (kernel) | ratio |');
console.log('|---|---|---|---|');
for (const [name, r] of Object.entries(lessons)) {
  console.log(`| ${name.replace('.ipynb', '')} | ${r.seconds.toFixed(1)} s | ${r.native_seconds.toFixed(1)} s | ${ratio(r.seconds, r.native_seconds)} |`);
}
console.log('\n| measure | browser | native 1 thread | native 2 threads | browser / 1 thread | browser / 2 threads |');
console.log('|---|---|---|---|---|---|');
const names = ['training step, four heads, batch 512, smoke corpus (ms)', 'generated token, bundled four-head model (ms)'];
names.forEach((label, k) => console.log(`| ${label} | ${best[k].toFixed(2)} | ${native['1'][k].toFixed(2)} | ` +
  `${native['2'][k].toFixed(2)} | ${ratio(best[k], native['1'][k])} | ${ratio(best[k], native['2'][k])} |`));
console.log(`\nfirst load (kernel idle on a lesson, no checkpoint read): ${mb(firstLoad)} transferred; ` +
            `after the three checkpoints: ${mb(withCheckpoints)}`);
