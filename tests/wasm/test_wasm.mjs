// test_wasm.mjs: the WebAssembly build under Node against the golden tokenizer vectors and the native build: logits of
// the bundled models (forward and forward_details, <= 1e-5 relative), greedy generation equal to native `generate`,
// and a checkpoint with deflated members.
// usage: node test_wasm.mjs DEMO_DIR WORDLAB TOKENIZE_JSONL   (DEMO_DIR: the built page, with wordlab.mjs and artifacts/)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [demo, wordlab, golden] = process.argv.slice(2);
if (!demo || !wordlab || !golden) {
  console.error('usage: node test_wasm.mjs DEMO_DIR WORDLAB TOKENIZE_JSONL');
  process.exit(2);
}
const REL_TOL = 1e-5;
const MODELS = ['mlp_seed11.npz', 'attention_seed11.npz', 'multihead_seed11.npz'];
const LOGIT_PROMPTS = [
  'a little dog found a red hat',
  'The zorblax sang to a quantum spreadsheet!',   // unknown words
  'once upon a time, there was a girl named lily. she loved to play in the park with her friend tom. ' +
    'one day they found a big red ball under a tree. "look!" said lily. they played all day and laughed ' +
    'until the sun went down. then they went home, tired and happy.',   // longer than the context
];
const GEN_PROMPTS = ['once upon a time', 'the little cat', 'Zorblax the wizard looked at the spreadsheet'];
const GEN_TOKENS = 40;

const { loadRuntime } = await import(pathToFileURL(path.join(demo, 'wordlab.mjs')).href);
const rt = await loadRuntime(fs.readFileSync(path.join(demo, 'wordlab-wasm.wasm')));
const art = path.join(demo, 'artifacts');
let failures = 0, checks = 0;
function check(ok, msg) {
  checks++;
  if (!ok) {
    failures++;
    if (failures <= 20) console.error(`FAIL ${msg}`);
  }
}

// 1. The golden tokenizer vectors.
const lines = fs.readFileSync(golden, 'utf8').split('\n').filter((l) => l.trim());
let goldenOk = 0;
for (const [i, line] of lines.entries()) {
  const { text, tokens } = JSON.parse(line);
  let got;
  try {
    got = rt.tokenize(text);
  } catch (e) {
    got = `error: ${e.message}`;
  }
  const ok = JSON.stringify(got) === JSON.stringify(tokens);
  goldenOk += ok;
  check(ok, `tokenize.jsonl line ${i + 1}: ${JSON.stringify(text).slice(0, 80)}: got ${JSON.stringify(got).slice(0, 200)}, want ${JSON.stringify(tokens).slice(0, 200)}`);
}
console.log(`tokenizer: ${goldenOk}/${lines.length} golden token lists match`);
if (lines.length < 100) check(false, `only ${lines.length} golden vectors in ${golden}`);

// 2. and 3. The native build's numbers, from one wordlab script.
const q = (s) => JSON.stringify(s);   // a wordlab "quoted string" (JSON escapes are the language's)
let script = '';
for (const f of MODELS) {
  script += `m = model load ${q(path.join(art, f))} vocab=${q(path.join(art, 'vocab.json'))}\n`;
  for (const p of LOGIT_PROMPTS) script += `d = details $m ${q(p)}\n$d.ids\n$d.logits\n`;
  for (const p of GEN_PROMPTS) script += `g = generate $m ${q(p)} tokens=${GEN_TOKENS}\n$g.tokens\n$g.stop\n$g.text\n`;
}
const out = execFileSync(wordlab, ['--json', '-c', script], { encoding: 'utf8', maxBuffer: 1 << 28 });
const native = out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const perModel = LOGIT_PROMPTS.length * 2 + GEN_PROMPTS.length * 3;
if (native.length !== MODELS.length * perModel) throw new Error(`native wordlab printed ${native.length} values, expected ${MODELS.length * perModel}`);

const vocab = rt.vocab(fs.readFileSync(path.join(art, 'vocab.json')));
// Generated text is spaced as English is written: quotes pair up, also when the prompt opened them.
const said = vocab.encode('came over . " i am happy , " said his mom').ids, cut = said.length - 8;
check(vocab.detokenize(said) === 'came over. "i am happy," said his mom', `readable text: ${q(vocab.detokenize(said))}`);
check(vocab.detokenize(said.slice(cut), said.slice(0, cut)) === 'i am happy," said his mom',
      `readable continuation: ${q(vocab.detokenize(said.slice(cut), said.slice(0, cut)))}`);
for (const [mi, f] of MODELS.entries()) {
  const model = rt.model(fs.readFileSync(path.join(art, f)), f, vocab);
  let k = mi * perModel, worst = 0;
  for (const p of LOGIT_PROMPTS) {
    const ids = native[k++].ids, want = native[k++].values;
    check(want.length === model.V, `${f}: native logits have ${want.length} entries, the wasm model V = ${model.V}`);
    const scale = Math.max(...want.map(Math.abs));
    for (const [what, got] of [['forward', model.forward(Int32Array.from(ids))],
                               ['forward_details', model.details(Int32Array.from(ids)).logits]]) {
      let diff = 0;
      for (let j = 0; j < want.length; j++) diff = Math.max(diff, Math.abs(got[j] - want[j]));
      const rel = diff / scale;
      worst = Math.max(worst, rel);
      check(rel <= REL_TOL, `${f} ${what} of ${q(p.slice(0, 40))}: max |wasm - native| / max |native| = ${rel.toExponential(2)} > ${REL_TOL}`);
    }
  }
  let same = 0;
  for (const p of GEN_PROMPTS) {
    const wantTokens = native[k++], wantStop = native[k++], wantText = native[k++];
    const promptIds = vocab.encode(p).ids;
    const g = model.start(promptIds, { maxNewTokens: GEN_TOKENS, greedy: true });
    while (!g.finished) g.step();
    const got = g.ids().map((id) => vocab.token(id));
    const text = vocab.detokenize(g.ids(), promptIds);   // the page's text: the same C as `generate`'s
    const ok = JSON.stringify(got) === JSON.stringify(wantTokens) && g.stop === wantStop && text === wantText;
    same += ok;
    check(ok, `${f} greedy from ${q(p)}: wasm ${JSON.stringify(got)} (${g.stop}) ${q(text)}, native ${JSON.stringify(wantTokens)} (${wantStop}) ${q(wantText)}`);
    g.free();
  }
  console.log(`${f}: logits within ${worst.toExponential(2)} relative of native (${LOGIT_PROMPTS.length} contexts, forward and forward_details); greedy generation equal for ${same}/${GEN_PROMPTS.length} prompts`);
  model.free();
}

// 4. The same checkpoint as numpy.savez_compressed writes it (deflated members: zlib's inflate in the module).
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wordlab-wasm-'));
try {
  const stored = path.join(art, MODELS[1]), packed = path.join(tmp, 'compressed.npz');
  execFileSync('/usr/bin/python3', ['-c', 'import sys, zipfile, numpy as np\n' +
    'z = np.load(sys.argv[1]); np.savez_compressed(sys.argv[2], **{k: z[k] for k in z.files})\n' +
    'assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in zipfile.ZipFile(sys.argv[2]).infolist())',
  stored, packed]);
  const a = rt.model(fs.readFileSync(stored), 'stored.npz', vocab), b = rt.model(fs.readFileSync(packed), 'compressed.npz', vocab);
  const ctx = Int32Array.from(native[perModel].ids);   // the second model's first context
  const la = a.forward(ctx), lb = b.forward(ctx);
  check(la.length === lb.length && la.every((x, j) => x === lb[j]), `${MODELS[1]} deflated by numpy: other logits than stored`);
  console.log(`${MODELS[1]} as numpy.savez_compressed writes it (${fs.statSync(packed).size} bytes, deflated): the same logits`);
  a.free();
  b.free();
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

// 5. Bad input is a clear error that names what and where, and the module goes on working.
const throws = (fn, pattern, what) => {
  try {
    fn();
    check(false, `${what}: no error`);
  } catch (e) {
    check(pattern.test(e.message), `${what}: the error "${e.message}" does not match ${pattern}`);
  }
};
const good = fs.readFileSync(path.join(art, MODELS[0]));
throws(() => rt.model(good.subarray(0, good.length >> 1), 'half.npz', vocab), /half\.npz/, 'a truncated checkpoint');
throws(() => rt.vocab(new TextEncoder().encode('{"itos": 3}'), 'bad-vocab.json'), /bad-vocab\.json.*itos/, 'a vocab.json without itos');
const m0 = rt.model(good, MODELS[0], vocab);
throws(() => m0.start([5], { maxNewTokens: 3, greedy: false, seed: -1 }), /seed/, 'a negative seed');
throws(() => m0.start([5], { maxNewTokens: 3, greedy: false, temperature: 0 }), /temperature/, 'temperature 0');
throws(() => m0.forward(new Int32Array(rt.T).fill(vocab.size)), /outside|vocabulary|range/, 'an id past the vocabulary');
check(m0.forward(Int32Array.from(native[0].ids)).every((x, j) => x === m0.forward(Int32Array.from(native[0].ids))[j]),
      'forward after the errors');
m0.free();
vocab.free();
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
