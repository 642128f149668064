// bench_wasm.mjs: ms per model call of greedy generation (the first training-story prefix, 200 new tokens at most)
// for each bundled model: native wordlab `generate`, the WebAssembly build in Node, and the demo page in chromium;
// five rounds in turn, the fastest of each kept (the machine's speed drifts), printed with the ratios to native.
// usage: node bench_wasm.mjs URL WORDLAB DEMO_DIR CHROMIUM_PROFILE
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { launchChromium } from '../browser/chromium.mjs';

const [url, wordlab, demo, profile] = process.argv.slice(2);
const ROUNDS = 5, TOKENS = 200, WARMUP = 20;
const data = JSON.parse(fs.readFileSync(path.join(demo, 'demo-data.json'), 'utf8'));
const art = path.join(demo, 'artifacts');
const prompt = data.prompts.train[0].prompt;
const q = JSON.stringify;

// threads: the native build's threads (its default is OpenBLAS's count; the WebAssembly build has one)
function native(file, threads) {
  const env = threads ? { ...process.env, OPENBLAS_NUM_THREADS: String(threads) } : process.env;
  const out = execFileSync(wordlab, ['--json', '-c',
    `m = model load ${q(path.join(art, file))} vocab=${q(path.join(art, 'vocab.json'))}\n` +
    `generate $m ${q(prompt)} tokens=${WARMUP}\ngenerate $m ${q(prompt)} tokens=${TOKENS}\n`], { encoding: 'utf8', env });
  const g = JSON.parse(out.trim().split('\n').at(-1));
  return { ms: g.ms_per_call, calls: g.calls };
}

const { loadRuntime } = await import(pathToFileURL(path.join(demo, 'wordlab.mjs')).href);
const rt = await loadRuntime(fs.readFileSync(path.join(demo, 'wordlab-wasm.wasm')));
const vocab = rt.vocab(fs.readFileSync(path.join(art, 'vocab.json')));
const nodeModels = data.models.map((m) => rt.model(fs.readFileSync(path.join(art, m.file)), m.file, vocab));
function inNode(i) {
  const model = nodeModels[i], ids = vocab.encode(prompt).ids;
  const warm = model.start(ids, { maxNewTokens: WARMUP });
  while (!warm.finished) warm.step();
  warm.free();
  const g = model.start(ids, { maxNewTokens: TOKENS });
  while (!g.finished) g.step();
  const r = { ms: g.msPerCall, calls: g.calls };
  g.free();
  return r;
}

const context = await launchChromium(profile);
const page = context.pages()[0] ?? await context.newPage();
await page.goto(url);
await page.waitForFunction(() => document.body.dataset.ready || document.body.dataset.error, null, { timeout: 120_000 });
async function inChromium(i) {
  await page.selectOption('#model', String(i));
  await page.check('input[name=kind][value=train]');
  await page.check('input[name=decode][value=greedy]');
  await page.fill('#limit', String(TOKENS));
  const runs = Number(await page.evaluate(() => document.body.dataset.runs || 0));
  await page.click('#generate');
  await page.waitForFunction((n) => Number(document.body.dataset.runs || 0) > n || document.body.dataset.error, runs,
    { timeout: 300_000 });
  const r = await page.evaluate(() => ({
    error: document.body.dataset.error, ms: Number(document.getElementById('ms-per-call').textContent),
    calls: Number(document.getElementById('n-calls').textContent),
  }));
  if (r.error) throw new Error(`the page failed: ${r.error}`);
  return r;
}

const best = data.models.map(() => ({ native: Infinity, native1: Infinity, node: Infinity, chromium: Infinity, calls: 0 }));
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, m] of data.models.entries()) {
    const n = native(m.file, 0), n1 = native(m.file, 1), w = inNode(i), c = await inChromium(i);
    if (n.calls !== w.calls || n.calls !== c.calls || n.calls !== n1.calls) {
      throw new Error(`${m.file}: ${n.calls} native calls (${n1.calls} with one thread), ${w.calls} in Node, ${c.calls} in chromium`);
    }
    best[i].native = Math.min(best[i].native, n.ms);
    best[i].native1 = Math.min(best[i].native1, n1.ms);
    best[i].node = Math.min(best[i].node, w.ms);
    best[i].chromium = Math.min(best[i].chromium, c.ms);
    best[i].calls = n.calls;
  }
}
const browser = (await page.evaluate(() => navigator.userAgent)).match(/(?:Headless)?Chrome\/[\d.]+/)?.[0] ?? 'chromium';
const isolated = await page.evaluate(() => self.crossOriginIsolated);
await context.close();

const versions = `node ${process.versions.node} (V8 ${process.versions.v8}), ${browser}, ${isolated ? '' : 'not '}cross-origin isolated`;
console.log(`greedy generation from "${prompt.slice(0, 50)}…", ${TOKENS} tokens at most; fastest of ${ROUNDS} rounds; ${versions}`);
console.log('model                 calls   native ms/call (1 thread)   Node ms/call (x native)   chromium ms/call (x native)');
for (const [i, m] of data.models.entries()) {
  const b = best[i];
  console.log(`${m.file.padEnd(22)}${String(b.calls).padStart(5)}   ${b.native.toFixed(3).padStart(14)} (${b.native1.toFixed(3)})   ` +
              `${b.node.toFixed(3).padStart(12)} (${(b.node / b.native).toFixed(2)}x)   ` +
              `${b.chromium.toFixed(3).padStart(16)} (${(b.chromium / b.native).toFixed(2)}x)`);
}
const total = fs.readdirSync(demo, { recursive: true }).map((f) => path.join(demo, f))
  .filter((f) => fs.statSync(f).isFile()).reduce((s, f) => s + fs.statSync(f).size, 0);
console.log(`the page's files (${demo}): ${(total / 1e6).toFixed(2)} MB in all`);
