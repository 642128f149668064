// demo.mjs: in Debian's chromium, opens the WebAssembly demo page, generates greedily with the four-head model and
// by sampling with the mlp, and checks what it shows against the native build's `generate`; saves a screenshot.
// usage: node demo.mjs URL SCREENSHOT.png USER_DATA_DIR WORDLAB DEMO_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';

const [url, screenshot, userDataDir, wordlab, demo] = process.argv.slice(2);
if (!url || !screenshot || !userDataDir || !wordlab || !demo) {
  console.error('usage: node demo.mjs URL SCREENSHOT.png USER_DATA_DIR WORDLAB DEMO_DIR');
  process.exit(2);
}
const RUN_TIMEOUT_MS = 300_000;
const data = JSON.parse(fs.readFileSync(path.join(demo, 'demo-data.json'), 'utf8'));
const art = path.join(demo, 'artifacts');

function fail(msg) {
  throw new Error(msg);
}

// The native build's generation: its new tokens and stop reason.
function nativeGenerate(file, prompt, options) {
  const q = JSON.stringify;
  const out = execFileSync(wordlab, ['--json', '-c',
    `m = model load ${q(path.join(art, file))} vocab=${q(path.join(art, 'vocab.json'))}\n` +
    `g = generate $m ${q(prompt)} ${options}\n$g.tokens\n$g.stop\n`], { encoding: 'utf8' });
  const [tokens, stop] = out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  return { tokens, stop };
}

// Runs one generation from the page's controls and returns what the page shows.
async function generate(page, { model, kind, prompt, decode, temperature, seed, limit }) {
  await page.selectOption('#model', String(model));
  await page.check(`input[name=kind][value=${kind}]`);
  if (prompt !== undefined) await page.fill('#prompt', prompt);
  await page.check(`input[name=decode][value=${decode}]`);
  if (temperature !== undefined) await page.fill('#temperature', String(temperature));
  if (seed !== undefined) await page.fill('#seed', String(seed));
  await page.fill('#limit', String(limit));
  const runs = Number(await page.evaluate(() => document.body.dataset.runs || 0));
  await page.click('#generate');
  await page.waitForFunction((n) => Number(document.body.dataset.runs || 0) > n || document.body.dataset.error,
    runs, { timeout: RUN_TIMEOUT_MS });
  return page.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent.trim();
    const rows = [...document.querySelectorAll('#heads tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    return {
      error: document.body.dataset.error || null,
      prompt: document.getElementById('prompt').value,
      promptTokens: [...document.querySelectorAll('#prompt-tokens .tok')].map((s) => s.textContent),
      tokens: [...document.querySelectorAll('#output .tok')].map((s) => s.textContent),
      nNew: Number(text('n-new')), calls: Number(text('n-calls')), stop: text('stop-reason'),
      seconds: Number(text('seconds')), msPerCall: Number(text('ms-per-call')),
      headsShown: !document.getElementById('heads-box').hidden, rows, text: text('text'),
      storyRest: document.getElementById('story-rest').hidden ? null : text('story-rest'),
    };
  });
}

// The numbers the page shows agree with each other and with the limit.
function checkNumbers(what, r, limit) {
  if (r.error) fail(`${what}: the page reports an error: ${r.error}`);
  if (r.nNew !== r.tokens.length) fail(`${what}: the page says ${r.nNew} new tokens but shows ${r.tokens.length}`);
  if (r.stop === 'limit' ? r.nNew !== limit || r.calls !== limit : r.stop !== 'eos' || r.calls !== r.nNew + 1) {
    fail(`${what}: stopped by "${r.stop}" after ${r.nNew} tokens and ${r.calls} calls (limit ${limit})`);
  }
  if (!(r.seconds > 0) || !(r.msPerCall > 0)) fail(`${what}: seconds ${r.seconds}, ms per call ${r.msPerCall}`);
  // both are rounded for display (4 and 3 decimals)
  if (Math.abs(r.msPerCall - (1000 * r.seconds) / r.calls) > 0.0005 + (1000 * 0.00005) / r.calls) {
    fail(`${what}: ${r.msPerCall} ms per call is not ${r.seconds} s over ${r.calls} calls`);
  }
}

const context = await launchChromium(userDataDir, { width: 1280, height: 1000 });
try {
  const page = context.pages()[0] ?? await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.url()}`); });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.waitForFunction(() => document.body.dataset.ready || document.body.dataset.error, null, { timeout: 120_000 });
  const startError = await page.evaluate(() => document.body.dataset.error);
  if (startError) fail(`the page did not start: ${startError}`);

  const options = await page.$$eval('#model option', (os) => os.map((o) => o.textContent));
  if (options.length !== data.models.length) fail(`the page offers ${options.length} models, demo-data.json has ${data.models.length}`);
  const pick = (pred, what) => {
    const i = data.models.findIndex(pred);
    if (i < 0) fail(`no ${what} checkpoint among ${data.models.map((m) => m.file).join(', ')}`);
    return i;
  };
  const multi = pick((m) => m.kind === 'multihead', 'multihead'), mlp = pick((m) => m.kind === 'mlp', 'mlp');

  // 1. Greedy, four heads, the first training-story prefix: the native tokens, and the head table.
  const limit1 = 24;
  const r1 = await generate(page, { model: multi, kind: 'train', decode: 'greedy', limit: limit1 });
  checkNumbers('greedy multihead', r1, limit1);
  if (r1.prompt !== data.prompts.train[0].prompt) fail(`the prompt shown is "${r1.prompt}", not the first training prefix`);
  const rest = data.prompts.train[0].story.replace(/\s+/g, ' ').slice(r1.prompt.length).trim().split(' ')[0];
  if (!r1.storyRest?.startsWith(`the training story goes on: ${rest}`)) fail(`the story's next words are shown as "${r1.storyRest}"`);
  const n1 = nativeGenerate(data.models[multi].file, r1.prompt, `tokens=${limit1}`);
  if (JSON.stringify(r1.tokens) !== JSON.stringify(n1.tokens) || r1.stop !== n1.stop) {
    fail(`greedy multihead: the page generated ${JSON.stringify(r1.tokens)} (${r1.stop}), native ${JSON.stringify(n1.tokens)} (${n1.stop})`);
  }
  const heads = data.models[multi].heads;
  if (!r1.headsShown || r1.rows.length !== heads + 1) fail(`the head table has ${r1.rows.length} rows, expected ${heads} heads and a header`);
  const keys = r1.rows[0].slice(1);
  if (keys[0] !== '<BOS>' && r1.promptTokens.length + limit1 < 64) fail(`the head table's first key is ${keys[0]}, not <BOS>`);
  // the last step read the prompt and every new token but the last one (and the last one too when it chose <EOS>)
  const read = r1.stop === 'eos' ? r1.nNew : r1.nNew - 1;
  const lastKey = read > 0 ? r1.tokens[read - 1] : r1.promptTokens.at(-1);
  if (keys.at(-1) !== lastKey) fail(`the head table's last key is "${keys.at(-1)}", expected "${lastKey}"`);
  for (const row of r1.rows.slice(1)) {
    const w = row.slice(1).map(Number);
    const sum = w.reduce((a, b) => a + b, 0);
    if (w.length !== keys.length || Math.abs(sum - 1) > 0.005 * w.length + 1e-9) fail(`head row ${row[0]} sums to ${sum}`);
  }

  // 2. Sampled, mlp, an outside-domain prompt with an unknown word: <UNK> shown, the native tokens for that seed.
  const limit2 = 16, prompt2 = 'The zorblax robot opened the hatch of the spaceship.';
  const r2 = await generate(page, { model: mlp, kind: 'outside', prompt: prompt2, decode: 'sample', temperature: 0.8, seed: 3, limit: limit2 });
  checkNumbers('sampled mlp', r2, limit2);
  if (!r2.promptTokens.includes('<UNK>')) fail(`the prompt's tokens ${JSON.stringify(r2.promptTokens)} show no <UNK> for "zorblax"`);
  if (r2.headsShown) fail('the mlp shows a head table');
  if (r2.storyRest !== null) fail('an outside-domain prompt shows a story');
  const n2 = nativeGenerate(data.models[mlp].file, prompt2, `tokens=${limit2} temperature=0.8 seed=3`);
  if (JSON.stringify(r2.tokens) !== JSON.stringify(n2.tokens) || r2.stop !== n2.stop) {
    fail(`sampled mlp: the page generated ${JSON.stringify(r2.tokens)} (${r2.stop}), native ${JSON.stringify(n2.tokens)} (${n2.stop})`);
  }

  // The screenshot shows run 1 (the head table) again: a greedy run on a held-out story with four heads.
  const r3 = await generate(page, { model: multi, kind: 'heldout', decode: 'greedy', limit: 30 });
  checkNumbers('greedy multihead, held-out story', r3, 30);
  if (problems.length) fail(problems.join('\n'));
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`demo page: greedy multihead ${r1.nNew} tokens (${r1.stop}) = native, ${r1.msPerCall} ms per call; ` +
              `sampled mlp ${r2.nNew} tokens (${r2.stop}) = native, ${r2.msPerCall} ms per call; ` +
              `held-out story ${r3.nNew} tokens, ${r3.msPerCall} ms per call; screenshot ${screenshot}`);
} finally {
  await context.close();
}
