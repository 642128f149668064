// export.mjs: the demo page's data, made by wordlab itself at build time: the bundled checkpoints (from their own
// metadata), a few training-story prefixes and held-out (test split) stories of the corpus that vocab.json was fit on.
// usage: node export.mjs WORDLAB ARTIFACTS_DIR OUT.json
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [wordlab, art, outFile] = process.argv.slice(2);
if (!wordlab || !art || !outFile) {
  console.error('usage: node export.mjs WORDLAB ARTIFACTS_DIR OUT.json');
  process.exit(2);
}
const NPROMPTS = 4;
const q = (s) => JSON.stringify(s);   // a wordlab "quoted string"
const run = (script) => execFileSync(wordlab, ['--json', '-c', script], { encoding: 'utf8', maxBuffer: 1 << 26 })
  .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

const vocabPath = path.join(art, 'vocab.json');
const vocab = JSON.parse(fs.readFileSync(vocabPath, 'utf8'));
if (!vocab.profile) throw new Error(`${vocabPath} names no corpus profile`);

// Every bundled checkpoint, described by wordlab.
const files = fs.readdirSync(art).filter((f) => f.endsWith('.npz')).sort();
if (!files.length) throw new Error(`no .npz checkpoints in ${art}`);
let script = '';
for (const f of files) {
  script += `m = model load ${q(path.join(art, f))} vocab=${q(vocabPath)}\n$m.kind\n$m.heads\n$m.parameters\n`;
}
const info = run(script);
const order = { mlp: 0, attention: 1, multihead: 2 };
const models = files.map((file, i) => ({
  file, kind: info[3 * i], heads: info[3 * i + 1], parameters: info[3 * i + 2],
  bytes: fs.statSync(path.join(art, file)).size,
})).sort((a, b) => (order[a.kind] ?? 9) - (order[b.kind] ?? 9) || a.file.localeCompare(b.file));

// The corpus of vocab.json's profile: its vocabulary must be vocab.json's, so that test stories are held out.
script = `stories = corpus profile=${vocab.profile}\n$stories.vocab.size\n`;
for (const split of ['train', 'test']) {
  for (let i = 1; i <= NPROMPTS; i++) script += `story $stories split=${split} story=${i}\n`;
}
const out = run(script);
const corpusVocab = out.find((v) => typeof v === 'number');
if (corpusVocab !== vocab.itos.length) {
  throw new Error(`corpus profile=${vocab.profile} has a vocabulary of ${corpusVocab} tokens, ${vocabPath} ${vocab.itos.length}: not the corpus the checkpoints were trained on`);
}
const texts = out.filter((v) => typeof v === 'string');
if (texts.length !== 2 * NPROMPTS) throw new Error(`wordlab gave ${texts.length} stories, expected ${2 * NPROMPTS}`);

// A prompt: the story's first sentence (at least six words), else its first twelve words.
function prefix(text) {
  const words = text.replace(/\s+/g, ' ').trim().split(' ');
  for (let i = 5; i < words.length; i++) if (/[.!?]["']?$/.test(words[i])) return words.slice(0, i + 1).join(' ');
  return words.slice(0, 12).join(' ');
}
const prompts = (k, label) => texts.slice(k * NPROMPTS, (k + 1) * NPROMPTS)
  .map((text, i) => ({ label: `${label} ${i + 1}`, prompt: prefix(text), story: text }));

const data = {
  profile: vocab.profile,
  vocab_size: vocab.itos.length,
  models,
  prompts: {
    train: prompts(0, 'training story'),
    heldout: prompts(1, 'held-out story'),
    outside: 'The spaceship landed on Mars, and the robot opened the hatch.',
  },
};
fs.mkdirSync(path.dirname(outFile), { recursive: true });
fs.writeFileSync(`${outFile}.tmp`, `${JSON.stringify(data, null, 1)}\n`);
fs.renameSync(`${outFile}.tmp`, outFile);
console.log(`export: ${models.length} models, ${2 * NPROMPTS} story prompts -> ${outFile}`);
